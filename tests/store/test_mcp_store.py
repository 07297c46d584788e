"""MCP rows in Postgres: credentials sealed at rest, and the access-request decision
and its grant written in one transaction (all or nothing, once)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from toolgate.services import Services
from toolgate.store import GrantRefused, RequestConflict
from toolgate.tools import McpServerConfig

from ..helpers import new_tenant

TOKEN = "Bearer sk-live-0123456789abcdef"


async def _tenant_with_server(services: Services) -> tuple[str, str, str]:
    tenant = new_tenant()
    await services.tenants.create(tenant, tenant)
    config = McpServerConfig(name="remote", transport="streamable-http",
                             url="http://127.0.0.1:9/mcp", headers={"Authorization": TOKEN},
                             env={"UNUSED": "also-secret-value"})  # fmt: skip
    record = await services.mcp_servers.create(tenant, config)
    tools = [{"name": n, "description": "", "input_schema": {"type": "object"}}
             for n in ("search", "fetch")]  # fmt: skip
    await services.mcp_servers.record_tools(record.id, tools, [])
    user = await services.users.create(tenant, "alice", None)
    return tenant, record.id, user.id


async def test_headers_and_env_are_sealed_at_rest_and_kept_when_sent_back_masked(
    services: Services,
) -> None:
    tenant, server, _ = await _tenant_with_server(services)
    async with services.sessions() as session:
        row = (await session.execute(text("SELECT env::text, headers::text FROM mcp_servers "
                                          "WHERE id = :id"), {"id": server})).one()  # fmt: skip
    assert "sk-live" not in row[1] and "also-secret" not in row[0] and "ciphertext" in row[1]
    record = await services.mcp_servers.get(tenant, server)
    assert record is not None and record.headers == {"Authorization": "****"}
    opened = await services.mcp_servers.open(tenant, server)
    assert opened is not None and opened.config.headers == {"Authorization": TOKEN}
    masked = opened.config.model_copy(update={"headers": {"Authorization": "****"},
                                               "timeout_seconds": 5.0})  # fmt: skip
    await services.mcp_servers.replace(tenant, server, masked)
    again = await services.mcp_servers.open(tenant, server)
    assert again is not None and again.config.headers == {"Authorization": TOKEN}
    assert again.config.timeout_seconds == 5.0


async def test_an_approval_that_cannot_write_its_grant_approves_nothing(
    services: Services,
) -> None:
    tenant, server, user = await _tenant_with_server(services)
    asked = await services.mcp_grants.request(tenant, server, user, ["search"], "please")
    assert asked is not None
    with pytest.raises(GrantRefused, match="has no tool 'serch'"):
        await services.mcp_grants.decide(tenant, asked.id, approve=True, decided_by="admin",
                                         note="", tool_allow=["serch"])  # fmt: skip
    still = await services.mcp_grants.get_request(tenant, asked.id)
    assert still is not None and (still.status, still.grant_id) == ("pending", None)
    assert await services.mcp_grants.grants(tenant, server) == []


async def test_two_admins_approving_at_once_write_one_grant(services: Services) -> None:
    tenant, server, user = await _tenant_with_server(services)
    asked = await services.mcp_grants.request(tenant, server, user, None, "")
    assert asked is not None

    async def approve(who: str) -> str:
        try:
            await services.mcp_grants.decide(tenant, asked.id, approve=True, decided_by=who,
                                             note="")  # fmt: skip
        except RequestConflict as exc:
            return exc.code
        return "approved"

    outcomes = await asyncio.gather(*(approve(f"admin{n}") for n in range(5)))
    assert sorted(outcomes) == ["access_request_decided"] * 4 + ["approved"]
    grants = await services.mcp_grants.grants(tenant, server)
    assert grants is not None and [(g.kind, g.subject_id) for g in grants] == [("user", user)]
    decided = await services.mcp_grants.get_request(tenant, asked.id)
    assert decided is not None and decided.grant_id == grants[0].id
