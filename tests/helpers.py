"""Small helpers shared by tests (fixtures live in conftest.py)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from temporalio.client import Client
from temporalio.common import HeaderCodecBehavior
from temporalio.testing import WorkflowEnvironment

from toolgate.crypto import KeyRing, generate_key
from toolgate.services import Services
from toolgate.store import Role

#: One key ring for the session: the Temporal test servers outlive each test's settings.
SECRET_KEYS = generate_key("test1")
RING = KeyRing.parse(SECRET_KEYS)
T = TypeVar("T")


def new_tenant() -> str:
    """A tenant id no other test uses, so tests share one database safely."""
    return f"t-{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True)
class TenantKeys:
    """A fresh tenant with one key per role, as Authorization headers."""

    tenant_id: str
    admin: dict[str, str]
    user: dict[str, str]


async def tenant_with_keys(services: Services) -> TenantKeys:
    tenant = new_tenant()
    await services.tenants.create(tenant, tenant)
    _a, admin = await services.keys.create(tenant, Role.ADMIN, "test admin")
    _u, user = await services.keys.create(tenant, Role.USER, "test user")
    return TenantKeys(tenant, bearer(admin), bearer(user))


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def master_headers(services: Services) -> dict[str, str]:
    _k, key = await services.keys.create("master", Role.MASTER, "test master")
    return bearer(key)


async def new_agent(services: Services, tenant_id: str, policy: dict[str, Any]) -> str:
    """An agent created in the store (API tests create theirs through the API)."""
    return (await services.agents.create(tenant_id, f"a-{uuid.uuid4().hex[:8]}", policy)).id


def toolgate_client(env: WorkflowEnvironment) -> Client:
    """The environment's client (time skipping included) with header encryption on."""
    config = env.client.config()
    config["header_codec_behavior"] = HeaderCodecBehavior.CODEC
    return Client(**config)


async def eventually(check: Callable[[], Awaitable[T]], what: str, tries: int = 1200) -> T:
    """The first truthy answer of ``check``, polled every 50 ms: waiting for a state
    (a run ending, a mirror catching up), never a timing assertion."""
    for _ in range(tries):
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")
