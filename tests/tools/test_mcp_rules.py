"""The rules of MCP access (spec §10), without a server: grants combine so that deny
wins and allow lists intersect; a user's grant narrows the agent's; a revoked grant
stops the next call although the agent's config still lists the tool."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolgate.tools import (
    AgentConfig,
    McpGrant,
    McpServerAccess,
    McpToolDef,
    PolicyInputs,
    PolicyRequest,
    Registry,
    SettingsLayers,
    ToolContext,
    ToolPolicy,
    ToolResult,
    governed_call,
)

from .memory_ports import MemoryAudit, MemoryPolicies, context, governance

SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}


def _tool(remote: str) -> McpToolDef:
    return McpToolDef("srv-1", "notes", "notes", remote, remote, SCHEMA, 10.0)


def _access(agent: McpGrant, users: dict[str, McpGrant] | None = None,
            require_user_grant: bool = False) -> McpServerAccess:  # fmt: skip
    tools = tuple(_tool(n) for n in ("add_note", "read_note", "show_config") if agent.permits(n))
    return McpServerAccess("srv-1", "notes", "notes", agent, users or {}, require_user_grant, tools)


def test_deny_wins_and_an_allow_list_is_the_whole_of_what_may_be_used() -> None:
    grant = McpGrant(allow=("add_note", "read_note"), deny=("read_note",))
    assert [grant.permits(t) for t in ("add_note", "read_note", "show_config")] == [
        True, False, False]  # fmt: skip
    assert McpGrant().permits("anything")
    assert not McpGrant(allow=()).permits("add_note")


def test_the_users_grant_narrows_the_agents_and_can_be_required() -> None:
    users = {"u1": McpGrant(deny=("read_note",)), "u2": McpGrant(allow=("show_config",))}
    access = _access(McpGrant(allow=("add_note", "read_note")), users)
    assert [t.remote for t in access.tools] == ["add_note", "read_note"]  # load-time join
    assert access.permits("read_note", "") and access.permits("read_note", "u9")
    assert not access.permits("read_note", "u1")  # the user's deny
    assert not access.permits("add_note", "u2")  # the allows intersect: nothing is left
    assert not access.permits("show_config", "u2")  # not in the agent's allow
    gated = _access(McpGrant(), {"u1": McpGrant()}, require_user_grant=True)
    assert gated.permits("add_note", "u1") and not gated.permits("add_note", "u2")
    assert "request one with POST /v1/mcp/servers/srv-1/access-requests" in gated.why_not(
        "add_note", "u2")  # fmt: skip


class Bridge:
    """A bridge in memory: grants as "stored now", and the calls that reached it."""

    def __init__(self, access: McpServerAccess | None) -> None:
        self.stored = access
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def access(self, ctx: ToolContext, server_id: str) -> McpServerAccess | None:
        return self.stored

    async def call(self, ctx: ToolContext, tool: McpToolDef, args: Mapping[str, Any]) -> ToolResult:
        self.calls.append((tool.remote, dict(args)))
        return ToolResult.ok(f"ran {tool.remote}")


async def test_only_granted_tools_are_registered_and_a_revocation_stops_the_next_call(
    tmp_path: Path,
) -> None:
    granted = _access(McpGrant(allow=("add_note", "read_note")))
    config = AgentConfig(
        PolicyInputs("acme", "a1", ToolPolicy(allow=("group:mcp",))), SettingsLayers(),
        mcp_servers=(granted,),
    )  # fmt: skip
    bridge = Bridge(granted)
    registry = config.registry(Registry(), bridge)
    assert config.resolution(registry, PolicyRequest()).tools == {
        "mcp_notes_add_note", "mcp_notes_read_note"}  # fmt: skip
    assert registry.describe("mcp_notes_add_note").groups == {"mcp", "mcp:notes"}
    policies = MemoryPolicies()
    policies.configs[("acme", "a1")] = config
    gate = governance(Registry(), policies, MemoryAudit(), mcp=bridge)
    calls = iter(range(10))

    def ctx() -> ToolContext:  # each call its own id: a mutating call's id never reruns
        return context(tmp_path, tool_call_id=f"run1:call{next(calls)}")

    ran = await governed_call(gate, ctx(), "mcp_notes_add_note", {"title": "t"})
    assert ran.for_llm == "ran add_note"
    bad = await governed_call(gate, ctx(), "mcp_notes_add_note", {"title": 1})
    assert bad.error_code == "invalid_arguments"  # the server's schema, checked by the gate
    bridge.stored = _access(McpGrant(allow=("read_note",)))  # add_note revoked in the store
    refused = await governed_call(gate, ctx(), "mcp_notes_add_note", {"title": "t"})
    assert refused.error_code == "mcp_access_denied"
    assert "does not include 'add_note'" in refused.for_llm
    bridge.stored = None  # the whole grant revoked
    gone = await governed_call(gate, ctx(), "mcp_notes_read_note", {"title": "t"})
    assert gone.error_code == "mcp_access_denied"
    assert bridge.calls == [("add_note", {"title": "t"})]
