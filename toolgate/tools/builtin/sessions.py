"""group:sessions — sessions_list, sessions_history, sessions_send, session_status.

The tools reach conversations through the :class:`SessionDirectory` port (Postgres for
the messages, Temporal for the runs), supplied by the worker. Listing, history and
status cover this agent's sessions in this tenant; a message may go to any session of
the tenant (another agent's too), delivered by signal or by starting its run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from .._model import Capability, ToolContext, ToolResult
from .._tool import Tool, ToolSpec
from ..errors import NotFound

_GROUP = frozenset({"sessions"})


class SessionDirectory(Protocol):
    async def sessions(self, ctx: ToolContext, limit: int) -> list[dict[str, Any]]: ...

    async def history(
        self, ctx: ToolContext, session_id: str, offset: int, limit: int
    ) -> list[dict[str, Any]] | None: ...

    async def send(self, ctx: ToolContext, session_id: str, text: str) -> str | None: ...

    async def status(self, ctx: ToolContext, session_id: str) -> dict[str, Any] | None: ...


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}  # fmt: skip


_SESSION = {"type": "string", "minLength": 1, "maxLength": 64}


class _SessionTool:
    def __init__(self, directory: SessionDirectory, spec: ToolSpec) -> None:
        self._directory = directory
        self._spec = spec

    @property
    def spec(self) -> ToolSpec:
        return self._spec


class SessionsList(_SessionTool):
    def __init__(self, directory: SessionDirectory) -> None:
        super().__init__(directory, ToolSpec(
            name="sessions_list", description="List this agent's sessions (conversations).",
            parameters=_obj({"limit": {"type": "integer", "minimum": 1, "maximum": 100}}, []),
            capability=Capability.READ_ONLY, groups=_GROUP))  # fmt: skip

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        found = await self._directory.sessions(ctx, int(args.get("limit", 20)))
        return ToolResult.ok(json.dumps(found, default=str))


class SessionsHistory(_SessionTool):
    def __init__(self, directory: SessionDirectory) -> None:
        super().__init__(directory, ToolSpec(
            name="sessions_history", description="Messages of a session, oldest first, paged.",
            parameters=_obj({"session_id": _SESSION,
                             "offset": {"type": "integer", "minimum": 0},
                             "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
                            ["session_id"]),
            capability=Capability.READ_ONLY, groups=_GROUP))  # fmt: skip

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        messages = await self._directory.history(
            ctx, str(args["session_id"]), int(args.get("offset", 0)), int(args.get("limit", 20))
        )
        if messages is None:
            raise NotFound(f"no session {args['session_id']!r} of this agent")
        return ToolResult.ok(json.dumps(messages))


class SessionsSend(_SessionTool):
    def __init__(self, directory: SessionDirectory) -> None:
        super().__init__(directory, ToolSpec(
            name="sessions_send", description="Send a message into another session.",
            parameters=_obj({"session_id": _SESSION,
                             "text": {"type": "string", "minLength": 1, "maxLength": 20_000}},
                            ["session_id", "text"]),
            capability=Capability.MUTATING, groups=_GROUP))  # fmt: skip

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        delivered = await self._directory.send(ctx, str(args["session_id"]), str(args["text"]))
        if delivered is None:
            raise NotFound(f"no session {args['session_id']!r} in this tenant")
        return ToolResult.ok(delivered)


class SessionStatus(_SessionTool):
    def __init__(self, directory: SessionDirectory) -> None:
        super().__init__(directory, ToolSpec(
            name="session_status", description="Status of a session's run (default: this one).",
            parameters=_obj({"session_id": _SESSION}, []),
            capability=Capability.READ_ONLY, groups=_GROUP))  # fmt: skip

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        session_id = str(args.get("session_id") or ctx.session_key)
        status = await self._directory.status(ctx, session_id)
        if status is None:
            raise NotFound(f"no session {session_id!r} of this agent")
        return ToolResult.ok(json.dumps(status))


def session_tools(directory: SessionDirectory) -> list[Tool]:
    return [SessionsList(directory), SessionsHistory(directory), SessionsSend(directory),
            SessionStatus(directory)]  # fmt: skip
