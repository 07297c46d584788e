"""The Tool protocol: what every tool, built-in, custom or MCP-bridged, provides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ._model import Capability, ToolContext, ToolResult

DEFAULT_TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """Static description of a tool; shown to the LLM and to API clients."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    """JSON Schema (draft 2020-12) of the arguments object."""
    capability: Capability | None = None
    """None means "infer from the name" (spec §3)."""
    groups: frozenset[str] = field(default=frozenset())
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    idempotent: bool = False
    """A mutating tool that is safe to run twice may be retried like a read-only one."""


@runtime_checkable
class Tool(Protocol):
    """A tool instance is shared by all calls; per-call state lives in ToolContext."""

    @property
    def spec(self) -> ToolSpec: ...

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult: ...
