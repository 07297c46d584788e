from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from toolgate.api import create_app
from toolgate.services import Services
from toolgate.worker import build_worker

from ..helpers import TenantKeys, master_headers, tenant_with_keys, toolgate_client


@pytest.fixture
async def api(
    services: Services, temporal_client: Client, tool_worker: Worker
) -> AsyncIterator[httpx.AsyncClient]:
    """The real FastAPI app, a real worker behind it, over httpx's ASGI transport."""
    app = create_app(services, temporal_client)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://toolgate") as client:
        yield client
    await app.state.mcp.aclose()


@pytest.fixture
async def acme(services: Services) -> TenantKeys:
    """A fresh tenant with an admin key and a user key."""
    return await tenant_with_keys(services)


@pytest.fixture
async def master(services: Services) -> dict[str, str]:
    """Authorization headers of a master key."""
    return await master_headers(services)


@pytest.fixture
async def dev_api(
    services: Services, temporal_dev_server: WorkflowEnvironment
) -> AsyncIterator[httpx.AsyncClient]:
    """The API and a worker on the real Temporal dev server: real time, for calls that
    wait (the time-skipping server would skip an approval's timeout at once)."""
    client = toolgate_client(temporal_dev_server)
    app = create_app(services, client)
    async with build_worker(client, services):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://toolgate") as http:
            yield http
