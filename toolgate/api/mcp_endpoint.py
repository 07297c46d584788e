"""toolgate as an MCP server: ``/mcp/{agent_id}`` serves the tools that agent may use,
over streamable HTTP, to any MCP client (an IDE, a desktop assistant).

The client authenticates with a toolgate API key (``Authorization: Bearer tgk_...``
or ``X-API-Key``), so the key's tenant and user decide, as for REST. Every call runs
as a ToolCall workflow through the same gate as an agent's own calls: policy, rate
limit, shell rules, scrubbing and the audit log. The protocol is the SDK's (its
low-level server in stateless, JSON-response mode); nothing of it is written here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.types import Receive, Scope, Send
from temporalio.client import Client, WorkflowFailureError

from .. import __version__
from ..services import Services
from ..store import Agent, Principal
from ..tools import CallContext, PolicyRequest
from ..tools.errors import ToolNotFound
from ..workflows import ToolCallStatus
from .invoking import invoke

CHANNEL = "mcp"
"""The channel of calls that arrive over MCP (a policy's group allow may name it)."""
STATE_KEY = "toolgate_mcp_caller"


@dataclass(frozen=True, slots=True)
class Caller:
    principal: Principal
    agent: Agent


def _error(status: int, code: str, message: str) -> tuple[int, bytes]:
    return status, json.dumps({"code": code, "message": message}).encode()


class McpEndpoint:
    """An ASGI app; its SDK session manager runs in a task of its own, started with
    the first request (the API may be served without ASGI lifespan events)."""

    def __init__(self, services: Services, temporal: Client) -> None:
        self._services = services
        self._temporal = temporal
        server: Server[Any] = Server(
            "toolgate", version=__version__, on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )  # fmt: skip
        self._manager = StreamableHTTPSessionManager(server, stateless=True, json_response=True)
        self._runner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()

    async def _run(self) -> None:
        async with self._manager.run():
            self._ready.set()
            await self._stop.wait()

    async def aclose(self) -> None:
        self._stop.set()
        if self._runner is not None:
            with contextlib.suppress(Exception):
                await self._runner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        caller, failure = await self._authenticate(scope)
        if caller is None:
            status, body = failure
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json")]})  # fmt: skip
            await send({"type": "http.response.body", "body": body})
            return
        scope.setdefault("state", {})[STATE_KEY] = caller
        if self._runner is None:
            self._runner = asyncio.create_task(self._run(), name="mcp-endpoint")
        await self._ready.wait()
        await self._manager.handle_request(scope, receive, send)

    async def _authenticate(self, scope: Scope) -> tuple[Caller | None, tuple[int, bytes]]:
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if not key:
            return None, _error(401, "missing_api_key", "send 'Authorization: Bearer <key>'")
        principal = await self._services.keys.authenticate(key.strip())
        if principal is None:
            return None, _error(401, "invalid_api_key", "the API key is invalid or revoked")
        agent_id = str(scope.get("path_params", {}).get("agent_id", ""))
        agent = await self._services.agents.get(principal.tenant_id, agent_id)
        if agent is None:
            return None, _error(404, "agent_not_found", f"no agent {agent_id!r} in your tenant")
        return Caller(principal, agent), (200, b"")

    @staticmethod
    def _caller(ctx: ServerRequestContext[Any, Any]) -> Caller:
        request = ctx.request
        assert isinstance(request, Request)
        caller = request.scope["state"][STATE_KEY]
        assert isinstance(caller, Caller)
        return caller

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """What the agent's LLM would see, for this key's user, on the mcp channel."""
        caller = self._caller(ctx)
        config = await self._services.configs.agent_config(caller.agent.tenant_id, caller.agent.id)
        if config is None:
            return types.ListToolsResult(tools=[])
        registry = config.registry(self._services.registry)
        request = PolicyRequest(channel=CHANNEL)
        names = config.tool_names(registry, request, caller.principal.user_id or "")
        tools = []
        for name in sorted(names):
            described = registry.describe(name)
            tools.append(types.Tool(name=name, description=described.description,
                                    input_schema=dict(described.parameters)))  # fmt: skip
        return types.ListToolsResult(tools=tools)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        caller = self._caller(ctx)
        agent = caller.agent
        config = await self._services.configs.agent_config(agent.tenant_id, agent.id)
        try:
            if config is None:
                raise ToolNotFound(f"agent {agent.id} no longer exists")
            descriptor = config.registry(self._services.registry).describe(params.name)
        except ToolNotFound as exc:
            return _text(f"[{exc.code}] {exc.message}", error=True)
        context = CallContext(
            tenant_id=agent.tenant_id, agent_id=agent.id,
            user_id=caller.principal.user_id or "",
            session_key=f"mcp:{caller.principal.key_id}", channel=CHANNEL,
        )  # fmt: skip
        try:
            invoked = await invoke(
                self._services,
                self._temporal,
                agent,
                descriptor,
                dict(params.arguments or {}),
                context,
                uuid.uuid4().hex,
            )
        except WorkflowFailureError as exc:
            return _text(f"[tool_call_failed] {getattr(exc.cause, 'message', exc.cause)}", True)
        outcome = invoked.outcome
        if isinstance(outcome, ToolCallStatus):
            return _text(f"[approval_required] waits for an admin's approval "
                         f"(approval {outcome.approval_id}); call again once it is decided",
                         error=True)  # fmt: skip
        if outcome.is_error:
            return _text(f"[{outcome.error_code}] {outcome.for_llm}", error=True)
        return _text(outcome.for_llm)


def _text(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                is_error=error)  # fmt: skip
