"""MCP-bridged tools (spec §10): what an agent may use of a tenant's MCP servers.

The rules live here, free of the SDK: a grant's allow and deny lists, how an agent's
grant and a user's grant combine, and a tool that forwards its call to a bridge (the
worker's connection pool). The join happens twice, as the issue asks: when the agent's
config is loaded (only tools the agent's grant permits are registered), and again when
a call runs, from a fresh read of the grants, so a revoked grant stops the next call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, model_validator

from ._model import Capability, ToolContext, ToolResult
from ._tool import ToolSpec
from .errors import ToolRefusal


class McpAccessDenied(ToolRefusal):
    code = "mcp_access_denied"


class McpUnavailable(ToolRefusal):
    """The server is down or reconnecting; the call fails fast instead of hanging."""

    code = "mcp_unavailable"


def tool_name(prefix: str, remote: str) -> str:
    return f"mcp_{prefix}_{remote}"


NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class McpServerConfig(BaseModel):
    """An MCP server as a tenant configures it: how to reach it, what to call its
    tools. Credentials (env of a stdio server, headers of an HTTP one) reach the
    connection in the worker only; they never enter workflow history."""

    name: str = Field(pattern=NAME.pattern)
    transport: Literal["stdio", "sse", "streamable-http"] = "stdio"
    command: str = ""
    args: list[str] = Field(default_factory=list, max_length=100)
    env: dict[str, str] = Field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    tool_prefix: str = Field(default="", pattern=r"^([a-z][a-z0-9_]{0,39})?$")
    """Tools are registered as ``mcp_<prefix>_<tool>``; the prefix defaults to the name."""
    enabled: bool = True
    timeout_seconds: float = Field(default=60, gt=0, le=3600)
    """How long one call (and a connection attempt) may take."""
    require_user_grant: bool = False
    """Calls on behalf of a user also need that user's grant (see access requests)."""

    @model_validator(mode="after")
    def _reachable(self) -> McpServerConfig:
        if self.transport == "stdio" and not self.command:
            raise ValueError("a stdio server needs a command")
        if self.transport != "stdio" and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"a {self.transport} server needs an http(s) url")
        return self

    @property
    def prefix(self) -> str:
        return self.tool_prefix or self.name

    def tool_name(self, tool: str) -> str:
        return tool_name(self.prefix, tool)


@dataclass(frozen=True, slots=True)
class McpGrant:
    """``tool_allow`` / ``tool_deny`` of one grant. Deny wins; an allow list, when
    set, is the whole of what may be used."""

    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] = ()

    def permits(self, tool: str) -> bool:
        if tool in self.deny:
            return False
        return self.allow is None or tool in self.allow

    @classmethod
    def from_json(cls, allow: Any, deny: Any) -> McpGrant:
        return cls(tuple(allow) if allow is not None else None, tuple(deny or ()))


@dataclass(frozen=True, slots=True)
class McpToolDef:
    """One tool a server announced, as the agent will see it."""

    server_id: str
    server: str
    prefix: str
    remote: str
    description: str
    parameters: Mapping[str, Any]
    timeout_seconds: float

    @property
    def name(self) -> str:
        return tool_name(self.prefix, self.remote)


@dataclass(frozen=True, slots=True)
class McpServerAccess:
    """One server as one agent may use it: the agent's grant, the users' grants."""

    server_id: str
    server: str
    prefix: str
    agent_grant: McpGrant
    user_grants: Mapping[str, McpGrant] = field(default_factory=dict)
    require_user_grant: bool = False
    """When set, a call needs a grant for its user too (given by an access request)."""
    tools: tuple[McpToolDef, ...] = ()
    """The server's tools that the agent's grant permits."""

    def permits(self, tool: str, user_id: str) -> bool:
        """Both the agent's and the user's lists apply; deny wins, allows intersect."""
        if not self.agent_grant.permits(tool):
            return False
        user = self.user_grants.get(user_id) if user_id else None
        if user is None:
            return not self.require_user_grant
        return user.permits(tool)

    def why_not(self, tool: str, user_id: str) -> str:
        if not self.agent_grant.permits(tool):
            return f"the agent's grant on MCP server {self.server!r} does not include {tool!r}"
        if user_id in self.user_grants:
            return f"your grant on MCP server {self.server!r} does not include {tool!r}"
        return (
            f"MCP server {self.server!r} needs a grant for your user; "
            f"request one with POST /v1/mcp/servers/{self.server_id}/access-requests"
        )


class McpBridge(Protocol):
    """The worker side of MCP: fresh grants from the store, calls over its pool."""

    async def access(self, ctx: ToolContext, server_id: str) -> McpServerAccess | None:
        """The agent's access to the server as stored now; None if it has none."""
        ...

    async def call(self, ctx: ToolContext, tool: McpToolDef, args: Mapping[str, Any]) -> ToolResult:
        """Run the tool on the server; raise McpUnavailable during an outage."""
        ...


class BridgedTool:
    """An MCP server's tool behind the gate; ``bridge`` is None where tools are only
    listed (the API), and a call there is refused rather than run."""

    def __init__(self, definition: McpToolDef, bridge: McpBridge | None) -> None:
        self.definition = definition
        self._bridge = bridge
        self.spec = ToolSpec(
            name=definition.name,
            description=definition.description,
            parameters=definition.parameters,
            capability=Capability.MCP_BRIDGED,
            groups=frozenset({"mcp", f"mcp:{definition.server}"}),
            timeout_seconds=definition.timeout_seconds,
        )

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        if self._bridge is None:
            raise McpUnavailable("MCP tools run on toolgate workers, not here")
        tool = self.definition
        access = await self._bridge.access(ctx, tool.server_id)
        if access is None:
            raise McpAccessDenied(
                f"agent {ctx.agent_id} has no grant on MCP server {tool.server!r} (any more)"
            )
        if not access.permits(tool.remote, ctx.user_id):
            raise McpAccessDenied(access.why_not(tool.remote, ctx.user_id))
        return await self._bridge.call(ctx, tool, args)


def hidden_tools(servers: tuple[McpServerAccess, ...], user_id: str) -> frozenset[str]:
    """The agent's MCP tools that this user may not use (not listed to their LLM)."""
    return frozenset(t.name for s in servers for t in s.tools if not s.permits(t.remote, user_id))
