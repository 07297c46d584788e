"""Value objects that flow through a governed tool call."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Capability(enum.StrEnum):
    """Side-effect class of a tool (spec §3); drives retries and parallel scheduling."""

    READ_ONLY = "read-only"
    MUTATING = "mutating"
    ASYNC = "async"
    MCP_BRIDGED = "mcp-bridged"


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Who is calling, from where, in which workspace: immutable, built once per call.

    Tools are shared across calls, so everything that varies per call lives here and
    never on the tool object.
    """

    tenant_id: str
    agent_id: str
    workspace: Path
    user_id: str = ""
    session_key: str = ""
    channel: str = ""
    chat_id: str = ""
    peer_kind: str = ""
    sandbox_key: str = ""
    subagent_depth: int = 0
    request_allow: frozenset[str] | None = None
    tool_call_id: str = ""
    """Stable id of this call (workflow run id + the LLM's call id); idempotency key."""
    scrub_values: tuple[str, ...] = field(default=())
    """Secrets injected for this call only; scrubbed from its output."""
    provider: str = ""
    """The LLM provider of the turn; selects provider profiles and allow lists."""
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """This tool's merged settings (spec §9 overlay), filled in by the gate."""
    shell_deny_groups: Mapping[str, bool] = field(default_factory=lambda: MappingProxyType({}))
    """Merged deny-group toggles for this agent (spec §9); empty means all denied."""
    workflow_id: str = ""
    """The workflow this call belongs to (approvals signal it)."""
    cli_binaries: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The tenant's credentialed binaries by name (``tools.cli.CliBinary``)."""
    keyword_rules: tuple[Any, ...] = ()
    """The credentialed CLI keyword allowlist (``tools.cli.KeywordRule``)."""


class ToolResult(BaseModel):
    """What a tool returns: ``for_llm`` goes back to the model, ``for_user`` to a human.

    Tool-level failures are results with ``is_error`` set, not exceptions, so the LLM
    can read them and adapt.
    """

    model_config = ConfigDict(frozen=True)

    for_llm: str
    """Text the LLM reads next turn."""
    for_user: str = ""
    """Optional text meant for the human (a summary, a rendered diff)."""
    is_error: bool = False
    error_code: str | None = None
    """Stable code from ``toolgate.tools.errors`` when ``is_error`` is set."""
    details: dict[str, str] = Field(default_factory=dict)
    """Structured facts about an error (e.g. ``group`` of a denied command)."""

    @classmethod
    def ok(cls, for_llm: str, for_user: str = "") -> ToolResult:
        return cls(for_llm=for_llm, for_user=for_user)

    @classmethod
    def error(cls, code: str, message: str, details: dict[str, str] | None = None) -> ToolResult:
        return cls(
            for_llm=message,
            for_user=message,
            is_error=True,
            error_code=code,
            details=details or {},
        )


class CallContext(BaseModel):
    """The wire form of a call's context: travels in Temporal headers, never in globals.

    It carries ids only. The workspace path is derived by the worker from these ids
    and its own configuration, so no caller can point a tool at an arbitrary
    directory. Recorded in workflow history: must not hold secrets.
    """

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    agent_id: str
    user_id: str = ""
    session_key: str = ""
    channel: str = ""
    chat_id: str = ""
    peer_kind: str = ""
    sandbox_key: str = ""
    subagent_depth: int = 0
    request_allow: list[str] | None = None
    """Per-request allow list injected by a channel; intersected with the agent's."""
    provider: str = ""
    """The LLM provider of the turn (``openai``, ``anthropic``, ...)."""
