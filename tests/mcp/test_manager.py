"""The worker's MCP manager with Postgres and real servers: calls through the gate,
an outage that fails fast with the reason, the status an operator reads, and a grant
revoked after the agent's config was loaded, which still stops the next call."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.client import Client

from toolgate.api import create_app
from toolgate.mcp import (
    HEALTH_EVERY_SECONDS,
    IDLE_AFTER_SECONDS,
    MAX_ATTEMPTS,
    ManualClock,
    McpManager,
    announced,
    probe,
)
from toolgate.services import Services
from toolgate.store import Role
from toolgate.tools import AgentConfig, McpServerConfig, ToolContext, governed_call

from ..helpers import bearer, eventually, new_agent, new_tenant
from .conftest import HttpNotes, notes_stdio, odd_stdio
from .waits import next_backoff, until_sleeping, until_state


@dataclass
class Setup:
    tenant: str
    agent: str
    server: str
    manager: McpManager
    clock: ManualClock


async def _register(services: Services, tenant: str, config: McpServerConfig) -> str:
    record = await services.mcp_servers.create(tenant, config)
    found = announced(config.name, config.prefix, await probe(config))
    await services.mcp_servers.record_tools(record.id, found.tools, found.warnings)
    return record.id


async def _setup(services: Services, config: McpServerConfig) -> Setup:
    tenant = new_tenant()
    await services.tenants.create(tenant, tenant)
    agent = await new_agent(services, tenant, {"profile": "minimal", "also_allow": ["group:mcp"]})
    server = await _register(services, tenant, config)
    assert await services.mcp_grants.grant(tenant, server, "agent", agent, None, [])
    clock = ManualClock()
    manager = McpManager(services.mcp_servers, services.mcp_grants, services.scrubber, clock=clock)
    return Setup(tenant, agent, server, manager, clock)


@pytest.fixture
async def stopping() -> AsyncIterator[list[McpManager]]:
    managers: list[McpManager] = []
    yield managers
    for manager in managers:
        await manager.stop()


def _ctx(s: Setup, tmp_path: Path) -> ToolContext:
    return ToolContext(s.tenant, s.agent, tmp_path, tool_call_id=f"r:{uuid.uuid4().hex}")


async def _as_the_api_shows_it(services: Services, temporal: Client, s: Setup) -> dict[str, Any]:
    _k, key = await services.keys.create(s.tenant, Role.ADMIN, "operator")
    transport = httpx.ASGITransport(app=create_app(services, temporal))
    async with httpx.AsyncClient(transport=transport, base_url="http://toolgate") as api:
        found = await api.get(f"/v1/mcp/servers/{s.server}", headers=bearer(key))
    assert found.status_code == 200, found.text
    shown: dict[str, Any] = found.json()
    return shown


async def test_a_call_during_an_outage_fails_fast_and_the_status_shows_why(
    services: Services, temporal_client: Client, http_notes: HttpNotes, tmp_path: Path,
    stopping: list[McpManager],
) -> None:  # fmt: skip
    s = await _setup(services, http_notes.config(timeout_seconds=5))
    stopping.append(s.manager)
    gate = replace(services.governance, mcp=s.manager)
    ok = await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_add_note",
                             {"title": "a", "text": "b"})  # fmt: skip
    assert (ok.is_error, ok.for_llm) == (False, "stored a")
    connection = s.manager.connection(s.server)
    assert connection is not None

    http_notes.kill()
    await until_sleeping(s.clock, 30.0)
    await s.clock.advance(30)
    await until_state(connection, "reconnecting")
    # The clock is frozen in the back-off: a call that waited for the server would hang.
    down = await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_list_notes", {})
    assert down.error_code == "mcp_unavailable"
    assert "reconnecting (attempt 1 of 10)" in down.for_llm and "last error" in down.for_llm
    while (wait := await next_backoff(s.clock, connection)) is not None:
        await s.clock.advance(wait)
    shown = await _as_the_api_shows_it(services, temporal_client, s)
    assert (shown["status"], shown["attempts"]) == ("failed", MAX_ATTEMPTS)
    assert re.search(r"(onnect|refused)", shown["last_error"]), shown["last_error"]
    failed_error = shown["last_error"]
    failed = await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_list_notes", {})
    assert "is marked failed after 10 attempts" in failed.for_llm

    http_notes.start()
    await s.manager.sync()  # what a "test connection" or a config change triggers
    assert s.manager.connection(s.server) is None  # the failed connection is let go
    back = await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_list_notes", {})
    assert back.for_llm == "(no notes)"  # a new server process: the notes are gone
    record = await services.mcp_servers.get(s.tenant, s.server)
    assert record is not None and record.status == "connected"
    assert record.last_error == failed_error  # what the outage was, for the operator


class Stale:
    """A config source that keeps answering with the config read before a change."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config

    async def agent_config(self, tenant_id: str, agent_id: str) -> AgentConfig:
        return self.config


async def test_a_grant_revoked_after_the_config_was_loaded_stops_the_next_call(
    services: Services, tmp_path: Path, stopping: list[McpManager]
) -> None:
    s = await _setup(services, notes_stdio())
    stopping.append(s.manager)
    loaded = await services.configs.agent_config(s.tenant, s.agent)
    assert loaded is not None
    gate = replace(services.governance, mcp=s.manager, configs=Stale(loaded))
    ran = await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_list_notes", {})
    assert ran.for_llm == "(no notes)"
    assert await services.mcp_grants.grant(s.tenant, s.server, "agent", s.agent, None,
                                           ["list_notes"])  # fmt: skip
    narrowed = await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_list_notes", {})
    assert narrowed.error_code == "mcp_access_denied"
    assert await services.mcp_grants.revoke(s.tenant, s.server, "agent", s.agent)
    revoked = await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_read_note", {"title": "x"})
    assert revoked.error_code == "mcp_access_denied" and "no grant" in revoked.for_llm


async def test_a_connection_opens_with_its_first_call_and_closes_when_idle(
    services: Services, tmp_path: Path, stopping: list[McpManager]
) -> None:
    s = await _setup(services, notes_stdio())
    stopping.append(s.manager)
    assert s.manager.connection(s.server) is None  # a worker starts no server by itself
    gate = replace(services.governance, mcp=s.manager)
    assert (await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_list_notes", {})).for_llm \
        == "(no notes)"  # fmt: skip
    first = s.manager.connection(s.server)
    assert first is not None and first.status.state == "connected"
    for _ in range(int(IDLE_AFTER_SECONDS // HEALTH_EVERY_SECONDS)):  # 10 quiet minutes
        await until_sleeping(s.clock, 30.0)
        await s.clock.advance(30)
    await until_state(first, "idle")
    assert first.client is None
    again = await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_list_notes", {})
    assert again.for_llm == "(no notes)"
    second = s.manager.connection(s.server)
    assert second is not None and second is not first and second.status.state == "connected"


async def test_a_started_manager_follows_servers_disabled_changed_and_deleted(
    services: Services, tmp_path: Path, stopping: list[McpManager]
) -> None:
    s = await _setup(services, notes_stdio())
    stopping.append(s.manager)
    services.configs.subscribe(s.manager.on_change)
    await s.manager.start()
    gate = replace(services.governance, mcp=s.manager)

    async def call() -> str:
        return (await governed_call(gate, _ctx(s, tmp_path), "mcp_notes_list_notes", {})).for_llm

    async def closed() -> bool:
        return s.manager.connection(s.server) is None

    assert await call() == "(no notes)"
    stored = await services.mcp_servers.get(s.tenant, s.server)
    assert stored is not None and stored.status == "connected" and stored.connected_at
    await services.mcp_servers.replace(s.tenant, s.server, notes_stdio(enabled=False))
    await eventually(closed, "the disabled server's connection is closed")
    await services.mcp_servers.replace(s.tenant, s.server, notes_stdio(timeout_seconds=30))
    assert await call() == "(no notes)"  # opened again, with the new config
    held = s.manager.connection(s.server)
    assert held is not None and held.config.timeout_seconds == 30
    await services.tenants.delete(s.tenant)
    await eventually(closed, "a deleted tenant's server is closed")


async def test_a_call_in_flight_keeps_its_connection_open_past_the_idle_time(
    services: Services, tmp_path: Path, stopping: list[McpManager]
) -> None:
    s = await _setup(services, odd_stdio())
    stopping.append(s.manager)
    gate = replace(services.governance, mcp=s.manager)
    release = tmp_path / "release"
    slow = {"text": "slow", "hold_until": str(release)}
    call = asyncio.create_task(governed_call(gate, _ctx(s, tmp_path), "mcp_odd_echo", slow))

    async def held() -> bool:
        found = s.manager.connection(s.server)
        return found is not None and found.status.state == "connected"

    await eventually(held, "the call's connection is open")
    connection = s.manager.connection(s.server)
    assert connection is not None
    for _ in range(int(IDLE_AFTER_SECONDS // HEALTH_EVERY_SECONDS) + 2):  # 11 quiet minutes
        await until_sleeping(s.clock, 30.0)
        await s.clock.advance(30)
    await until_sleeping(s.clock, 30.0)  # checked, and still watching: not idle
    assert connection.status.state == "connected" and not call.done()
    release.touch()
    assert (await call).for_llm == "echo: slow"
