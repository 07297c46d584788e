from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from temporalio.client import Client
from temporalio.worker import Worker

from toolgate.api import create_app
from toolgate.services import Services

from ..helpers import TenantKeys, master_headers, tenant_with_keys


@pytest.fixture
async def api(
    services: Services, temporal_client: Client, tool_worker: Worker
) -> AsyncIterator[httpx.AsyncClient]:
    """The real FastAPI app, a real worker behind it, over httpx's ASGI transport."""
    app = create_app(services, temporal_client)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://toolgate") as client:
        yield client


@pytest.fixture
async def acme(services: Services) -> TenantKeys:
    """A fresh tenant with an admin key and a user key."""
    return await tenant_with_keys(services)


@pytest.fixture
async def master(services: Services) -> dict[str, str]:
    """Authorization headers of a master key."""
    return await master_headers(services)
