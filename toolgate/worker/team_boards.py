"""The TeamBoards port of team_tasks: Temporal for changes and reads, Postgres for
search. Bound to the worker's client when the worker starts (like the sessions')."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from ..tools import ToolContext
from ..tools.errors import InfrastructureError
from ..tools.team import BoardAction, BoardRefusal
from ._bound import WorkerBound

if TYPE_CHECKING:
    from ..services import Services


class WorkerTeamBoards(WorkerBound):
    what = "team tools"

    async def teams_of(self, ctx: ToolContext) -> list[tuple[str, str]]:
        services, _ = self._parts()
        return [(t.id, t.name) for t in await services.teams.find(ctx.tenant_id, ctx.agent_id)]

    async def act(self, ctx: ToolContext, team_id: str, action: BoardAction) -> Any:
        return await board_act(*self._parts(), ctx.tenant_id, team_id, action)

    async def read(self, ctx: ToolContext, team_id: str, action: BoardAction) -> Any:
        from ..workflows import TeamBoardWorkflow

        services, client = self._parts()
        if action.action == "search":
            found = await services.teams.tasks(team_id, query=action.query, limit=50)
            return [t.model_dump() for t in found]
        handle = client.get_workflow_handle_for(TeamBoardWorkflow.run, f"teamboard-{team_id}")
        if action.action == "get":
            task = await handle.query(TeamBoardWorkflow.task, action.task_id)
            if task is None:
                raise BoardRefusal(f"no task {action.task_id!r} on this board",
                                   code="task_not_found")  # fmt: skip
            return task.model_dump()
        tasks = await handle.query(TeamBoardWorkflow.tasks, action.status)
        return [t.model_dump() for t in tasks]


async def board_act(
    services: Services, client: Client, tenant_id: str, team_id: str, action: BoardAction
) -> Any:
    """One change of a team's board; an illegal move raises BoardRefusal with its code."""
    from ..teams import ensure_board
    from ..workflows import TeamBoardWorkflow

    handle = client.get_workflow_handle_for(TeamBoardWorkflow.run, f"teamboard-{team_id}")
    for attempt in range(2):
        try:
            reply = await handle.execute_update(TeamBoardWorkflow.act, action)
            return reply.result
        except WorkflowUpdateFailedError as exc:
            message = getattr(exc.cause, "message", str(exc.cause))
            code = getattr(exc.cause, "type", None) or "illegal_move"
            raise BoardRefusal(message, code=code) from None
        except RPCError as exc:
            if exc.status != RPCStatusCode.NOT_FOUND or attempt:
                raise InfrastructureError(f"the team board did not answer: {exc}") from exc
            team = await services.teams.get(tenant_id, team_id)
            if team is None:
                raise BoardRefusal("the team no longer exists", code="not_in_a_team") from None
            await ensure_board(services, client, team)
    raise AssertionError("unreachable")
