"""In-memory implementations of the core's ports, for fast tests of the rules.

The Postgres implementations are tested against real Postgres in tests/store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from toolgate.tools import (
    AgentConfig,
    AuditEntry,
    CommandGuard,
    Governance,
    McpBridge,
    PolicyInputs,
    RateLimit,
    Registry,
    Scrubber,
    SettingsLayers,
    TokenBucketLimiter,
    ToolContext,
    ToolPolicy,
    ToolResult,
)


@dataclass
class MemoryPolicies:
    """A ConfigSource in memory: per-agent policies and settings layers."""

    configs: dict[tuple[str, str], AgentConfig] = field(default_factory=dict)

    def allow(self, tenant: str, agent: str, *tools: str) -> None:
        self.set(tenant, agent, ToolPolicy(allow=tools))

    def set(
        self,
        tenant: str,
        agent: str,
        policy: ToolPolicy,
        settings: SettingsLayers | None = None,
        tenant_policy: ToolPolicy | None = None,
    ) -> None:
        inputs = PolicyInputs(tenant, agent, policy, tenant_policy or ToolPolicy())
        self.configs[(tenant, agent)] = AgentConfig(inputs, settings or SettingsLayers())

    async def agent_config(self, tenant_id: str, agent_id: str) -> AgentConfig | None:
        return self.configs.get((tenant_id, agent_id))


@dataclass
class MemoryAudit:
    entries: list[AuditEntry] = field(default_factory=list)

    async def record(self, entry: AuditEntry) -> None:
        self.entries.append(entry)

    async def completed(self, tool_call_id: str) -> ToolResult | None:
        for entry in self.entries:
            if entry.tool_call_id == tool_call_id and entry.outcome == "ok":
                return entry.result
        return None


def governance(
    registry: Registry,
    policies: MemoryPolicies,
    audit: MemoryAudit,
    limit: RateLimit | None = None,
    scrubber: Scrubber | None = None,
    command_guard: CommandGuard | None = None,
    mcp: McpBridge | None = None,
) -> Governance:
    async def registry_for(_ctx: ToolContext) -> Registry:
        return registry

    return Governance(
        registry_for=registry_for,
        configs=policies,
        limiter=TokenBucketLimiter(limit or RateLimit(per_minute=6000, burst=1000)),
        scrubber=scrubber or Scrubber(),
        audit=audit,
        command_guard=command_guard,
        mcp=mcp,
    )


def context(workspace_root: Path, **overrides: object) -> ToolContext:
    values: dict[str, object] = {
        "tenant_id": "acme",
        "agent_id": "a1",
        "workspace": workspace_root / "acme" / "a1" / "_shared",
        "session_key": "s1",
        "tool_call_id": "run1:call1",
    }
    values.update(overrides)
    return ToolContext(**values)  # type: ignore[arg-type]
