"""The small Protocols through which the core reaches storage and backends.

``toolgate.store`` implements them on Postgres; tests may implement them in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ._model import ToolResult


@dataclass(frozen=True, slots=True)
class AgentPolicy:
    """The policy inputs stored on an agent row.

    ``allowed_tools`` holds tool names, ``group:<name>`` references and ``*``.
    """

    tenant_id: str
    agent_id: str
    allowed_tools: tuple[str, ...]


class PolicySource(Protocol):
    async def agent_policy(self, tenant_id: str, agent_id: str) -> AgentPolicy | None:
        """The agent's policy, or None if no such agent exists in that tenant."""
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
