"""The SessionDirectory of the session tools: Postgres for messages, Temporal for runs.

Built with the services; the worker binds its Temporal client when it starts, so an
API process (which never runs tools) needs no client for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tools import ToolContext
from ._bound import WorkerBound

if TYPE_CHECKING:
    pass


class WorkerSessionDirectory(WorkerBound):
    what = "session tools"

    async def sessions(self, ctx: ToolContext, limit: int) -> list[dict[str, Any]]:
        services, _ = self._parts()
        found = await services.sessions_store.find(ctx.tenant_id, ctx.agent_id)
        return [{"id": s.id, "user_id": s.user_id, "channel": s.channel, "chat_id": s.chat_id,
                 "current_run": s.current_run, "created_at": s.created_at.isoformat()}
                for s in found[:limit]]  # fmt: skip

    async def _own(self, ctx: ToolContext, session_id: str) -> Any:
        services, _ = self._parts()
        session = await services.sessions_store.get(ctx.tenant_id, session_id)
        return session if session is not None and session.agent_id == ctx.agent_id else None

    async def history(
        self, ctx: ToolContext, session_id: str, offset: int, limit: int
    ) -> list[dict[str, Any]] | None:
        services, _ = self._parts()
        if await self._own(ctx, session_id) is None:
            return None
        messages = await services.sessions_store.messages(session_id, offset, limit)
        return [{"role": m.role, "content": m.content[:4000]} for m in messages]

    async def send(self, ctx: ToolContext, session_id: str, text: str) -> str | None:
        from ..conversations import deliver

        services, client = self._parts()
        session = await services.sessions_store.get(ctx.tenant_id, session_id)
        if session is None:
            return None
        run_id, delivered = await deliver(services, client, session, text)
        return f"message {delivered} to session {session_id} (run {run_id})"

    async def status(self, ctx: ToolContext, session_id: str) -> dict[str, Any] | None:
        from ..workflows import AgentRunWorkflow

        session = await self._own(ctx, session_id)
        if session is None:
            return None
        if session.current_run is None:
            return {"session_id": session_id, "state": "idle", "runs": 0}
        _, client = self._parts()
        handle = client.get_workflow_handle_for(AgentRunWorkflow.run, session.current_run)
        status = await handle.query(AgentRunWorkflow.status)
        return {"session_id": session_id, "run_id": session.current_run, "runs": session.runs,
                **status.model_dump()}  # fmt: skip
