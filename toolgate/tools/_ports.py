"""The small Protocols through which the core reaches storage and backends.

``toolgate.store`` implements them on Postgres; tests may implement them in memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ._custom import CustomTool, CustomToolDef
from ._mcp import BridgedTool, McpBridge, McpServerAccess, hidden_tools
from ._model import ToolResult
from ._policy import PolicyInputs, PolicyRequest, Resolution, resolve
from ._registry import Registry
from ._settings import SettingsLayers
from .cli import CliBinary, KeywordRule

MAX_MEMOISED = 64


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """What the gate reads about an agent before a call: its policy and tool settings.

    One object, so a cache can hold (and drop) the whole of it per agent.
    """

    policy: PolicyInputs
    settings: SettingsLayers
    secret_values: tuple[str, ...] = ()
    """The tenant's stored secrets: scrubbed from every tool result of the tenant."""
    shell_deny_groups: Mapping[str, bool] = field(default_factory=dict)
    """Deny-group toggles merged global → tenant → agent (missing keys: denied)."""
    custom_tools: tuple[CustomToolDef, ...] = ()
    """The tenant's enabled custom tools for this agent (tenant-wide or its own)."""
    cli_binaries: Mapping[str, CliBinary] = field(default_factory=dict)
    """The tenant's enabled credentialed binaries, by name, with their grants."""
    keyword_rules: tuple[KeywordRule, ...] = ()
    hooks: tuple[Mapping[str, Any], ...] = ()
    """The agent's PreToolUse hooks as stored (``tools.HookList`` reads them)."""
    llm: Mapping[str, Any] = field(default_factory=dict)
    """The agent's LLM settings as stored (``providers.AgentLLM`` reads them)."""
    mcp_servers: tuple[McpServerAccess, ...] = ()
    """The tenant's enabled MCP servers this agent holds a grant on, with their tools."""
    _registries: dict[tuple[int, int], tuple[Registry, Registry]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def registry(self, shared: Registry, mcp: McpBridge | None = None) -> Registry:
        """The shared registry plus this agent's custom and MCP tools, on a clone
        (phase two). ``mcp`` is the worker's bridge; without one, MCP tools are listed
        but cannot run.

        The shared registry of the worker is never mutated; the clone lives as long as
        this config object, which a change notification replaces.
        """
        if not self.custom_tools and not self.mcp_servers:
            return shared
        key = (id(shared), id(mcp))
        found = self._registries.get(key)
        if found is not None and found[0] is shared:
            return found[1]
        overlay = shared.clone()
        for definition in self.custom_tools:
            if definition.name not in overlay:
                overlay.register(CustomTool(definition))
        for server in self.mcp_servers:
            for tool in server.tools:
                if tool.name not in overlay:
                    overlay.register(BridgedTool(tool, mcp))
        self._registries[key] = (shared, overlay)
        return overlay

    def tool_names(
        self, registry: Registry, request: PolicyRequest, user_id: str = ""
    ) -> frozenset[str]:
        """What reaches the LLM: the policy's tools, less the MCP tools that
        ``user_id``'s grants rule out (spec §10)."""
        return self.resolution(registry, request).tools - hidden_tools(self.mcp_servers, user_id)

    _resolved: dict[tuple[Registry, PolicyRequest], Resolution] = field(
        default_factory=dict, compare=False, repr=False
    )

    def resolution(self, registry: Registry, request: PolicyRequest) -> Resolution:
        """The pipeline's result, computed once per (registry, request) for this config.

        A config object is immutable and is replaced (never edited) when Postgres
        announces a change, so a memo on it can never be stale. Bounded, because
        per-request allow lists vary.
        """
        key = (registry, request)
        found = self._resolved.get(key)
        if found is None:
            if len(self._resolved) >= MAX_MEMOISED:
                self._resolved.clear()
            found = self._resolved[key] = resolve(self.policy, registry, request)
        return found


class ConfigSource(Protocol):
    async def agent_config(self, tenant_id: str, agent_id: str) -> AgentConfig | None:
        """The agent's config, or None if no such agent exists in that tenant."""
        ...


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One governed call, as written to the audit log. Holds scrubbed data only."""

    tool_call_id: str
    tenant_id: str
    agent_id: str
    user_id: str
    session_key: str
    tool: str
    arguments: Any
    outcome: str
    """``ok``, ``tool_error`` (the tool ran and reported an error) or ``refused``."""
    error_code: str | None
    duration_ms: float
    result: ToolResult


class AuditLog(Protocol):
    async def record(self, entry: AuditEntry) -> None: ...

    async def completed(self, tool_call_id: str) -> ToolResult | None:
        """The result of an earlier successful run of this call id, if any."""
        ...
