"""Request and response bodies of the MCP routes (docs/mcp.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..tools import McpServerConfig


class McpServerIn(McpServerConfig):
    """An MCP server to register. ``env`` (stdio) and ``headers`` (sse,
    streamable-http) are stored encrypted and shown back as ``****``; sending ``****``
    back keeps the stored value."""

    model_config = ConfigDict(extra="forbid")


class McpToolPublic(BaseModel):
    name: str
    """The name agents see: ``mcp_<prefix>_<tool>``."""
    remote_name: str
    description: str
    parameters: dict[str, Any]


class McpServerPublic(BaseModel):
    id: str
    name: str
    transport: str
    command: str
    args: list[str]
    env: dict[str, str]
    url: str
    headers: dict[str, str]
    tool_prefix: str
    enabled: bool
    timeout_seconds: float
    require_user_grant: bool
    status: str
    """``pending`` (no worker has connected yet: connections open on first use),
    ``connected``, ``reconnecting``, ``failed`` (10 attempts in a row failed; see
    ``last_error``) or ``idle`` (closed after 10 minutes without a call)."""
    last_error: str
    """The last connection error; kept after a reconnect, to show what the outage was."""
    attempts: int
    """Failed attempts in a row (0 while connected)."""
    connected_at: datetime | None
    """When a worker last (re)connected."""
    checked_at: datetime | None
    tools: list[McpToolPublic]
    tool_warnings: list[str]
    tools_seen_at: datetime | None
    created_at: datetime
    updated_at: datetime


class McpTestResult(BaseModel):
    ok: bool
    tools: list[str] = Field(default_factory=list)
    """The names agents would see, when the connection worked."""
    warnings: list[str] = Field(default_factory=list)
    error: str = ""


class McpServerCreated(McpServerPublic):
    test: McpTestResult
    """What connecting once, right after registering, found."""


class GrantIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool_allow: list[str] | None = Field(default=None, max_length=500)
    """The server's tools that may be used (its own names, or ``mcp_<prefix>_<tool>``);
    omitted or null: all of them."""
    tool_deny: list[str] = Field(default_factory=list, max_length=500)
    """Tools that may not be used; deny wins over allow."""


class GrantPublic(BaseModel):
    id: str
    server_id: str
    kind: Literal["agent", "user"]
    subject_id: str
    tool_allow: list[str] | None
    tool_deny: list[str]
    created_at: datetime
    updated_at: datetime


class AccessRequestIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool_allow: list[str] | None = Field(default=None, max_length=500)
    reason: str = Field(default="", max_length=2000)
    user_id: str = ""
    """Admins may ask on behalf of a user; a user key asks for its own user."""


class DecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = Field(default="", max_length=2000)
    tool_allow: list[str] | None = Field(default=None, max_length=500)
    """On approval: grant these tools instead of the ones requested."""


class AccessRequestPublic(BaseModel):
    id: str
    server_id: str
    user_id: str
    tool_allow: list[str] | None
    reason: str
    status: Literal["pending", "approved", "rejected"]
    decided_by: str | None
    decision_note: str
    decided_at: datetime | None
    grant_id: str | None
    created_at: datetime
