"""Teams and their task boards, for the humans watching (and steering) a team.

Reads come from the Postgres mirror the board writes; a person's moves (approve,
answer a question, comment) go to the board as the same Update the agents use, with
the actor ``user:<id>``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Query, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from temporalio.service import RPCError

from ...services import Services
from ...store import Principal, Team, TeamNameTaken
from ...teams import ensure_board
from ...tools.team import BoardAction, BoardRefusal, Question, Task
from ...worker.team_boards import board_act
from ...workflows import TeamBoardWorkflow
from ..deps import AdminPrincipal, CurrentPrincipal, ServicesDep, TemporalClientDep, load_agent
from ..errors import ApiError

router = APIRouter(tags=["teams"])
EVENT_POLL_SECONDS = 0.25


class MemberIn(BaseModel):
    agent_id: str
    role: str = Field(min_length=1, max_length=200)


class TeamIn(BaseModel):
    name: str = Field(min_length=1, max_length=200, examples=["docs"])
    lead_agent_id: str
    members: list[MemberIn] = Field(default_factory=list, max_length=50)


class MemberPublic(BaseModel):
    agent_id: str
    role: str
    session_id: str
    """The member's team session; the user talks to the lead in the lead's."""


class TeamPublic(BaseModel):
    id: str
    name: str
    lead_agent_id: str
    members: list[MemberPublic]
    board_workflow_id: str
    created_at: datetime


class TaskDetail(BaseModel):
    task: Task
    comments: list[dict[str, Any]]
    attachments: list[dict[str, Any]]


class BoardEventPublic(BaseModel):
    seq: int
    task_id: str
    action: str
    actor: str
    detail: dict[str, Any]
    created_at: datetime


def _public(team: Team) -> TeamPublic:
    return TeamPublic(
        id=team.id, name=team.name, lead_agent_id=team.lead_agent_id,
        members=[MemberPublic(agent_id=m.agent_id, role=m.role, session_id=m.session_id)
                 for m in team.members],
        board_workflow_id=team.board_id, created_at=team.created_at,
    )  # fmt: skip


async def _team(services: Services, principal: Principal, team_id: str) -> Team:
    found = await services.teams.get(principal.tenant_id, team_id)
    if found is None:
        raise ApiError(404, "team_not_found", f"no team {team_id!r} in your tenant")
    return found


@router.post("/v1/teams", status_code=201, response_model=TeamPublic)
async def create_team(
    body: TeamIn, services: ServicesDep, temporal: TemporalClientDep, principal: AdminPrincipal
) -> TeamPublic:
    """A lead and members with roles; each gets a team session, the board starts."""
    lead = await load_agent(services, principal, body.lead_agent_id)
    members = []
    for member in body.members:
        agent = await load_agent(services, principal, member.agent_id)
        members.append((agent.id, member.role))
    try:
        team = await services.teams.create(principal.tenant_id, body.name, lead.id, members)
    except TeamNameTaken:
        raise ApiError(409, "team_exists", f"a team named {body.name!r} exists") from None
    await ensure_board(services, temporal, team)
    return _public(team)


@router.get("/v1/teams", response_model=list[TeamPublic])
async def list_teams(services: ServicesDep, principal: CurrentPrincipal) -> list[TeamPublic]:
    return [_public(t) for t in await services.teams.find(principal.tenant_id)]


@router.get("/v1/teams/{team_id}", response_model=TeamPublic)
async def get_team(team_id: str, services: ServicesDep, principal: CurrentPrincipal) -> TeamPublic:
    return _public(await _team(services, principal, team_id))


@router.delete("/v1/teams/{team_id}", status_code=204)
async def delete_team(
    team_id: str, services: ServicesDep, temporal: TemporalClientDep, principal: AdminPrincipal
) -> Response:
    team = await _team(services, principal, team_id)
    try:
        await temporal.get_workflow_handle(team.board_id).terminate("team deleted")
    except RPCError:
        pass  # already gone
    await services.teams.delete(principal.tenant_id, team_id)
    return Response(status_code=204)


@router.get("/v1/teams/{team_id}/tasks", response_model=list[Task])
async def list_tasks(
    team_id: str, services: ServicesDep, principal: CurrentPrincipal,
    status: str | None = None, q: str = "", limit: int = Query(default=100, ge=1, le=1000),
    offset: int = Query(default=0, ge=0),
) -> list[Task]:  # fmt: skip
    """The board's tasks in order; ``q`` searches title, description and result."""
    team = await _team(services, principal, team_id)
    return await services.teams.tasks(team.id, status, q, limit, offset)


@router.get("/v1/teams/{team_id}/tasks/{task_id}", response_model=TaskDetail)
async def get_task(
    team_id: str, task_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> TaskDetail:
    team = await _team(services, principal, team_id)
    found = await services.teams.task(team.id, task_id)
    if found is None:
        raise ApiError(404, "task_not_found", f"no task {task_id!r} on this board")
    events = await services.teams.events(team.id, task_id=task_id)
    comments = [{"actor": e.actor, **e.detail, "at": e.created_at.isoformat()}
                for e in events if e.action == "comment"]  # fmt: skip
    attachments = [{"actor": e.actor, **e.detail, "at": e.created_at.isoformat()}
                   for e in events if e.action == "attach"]  # fmt: skip
    return TaskDetail(task=found, comments=comments, attachments=attachments)


@router.get("/v1/teams/{team_id}/tasks/{task_id}/history", response_model=list[BoardEventPublic])
async def task_history(
    team_id: str, task_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> list[BoardEventPublic]:
    team = await _team(services, principal, team_id)
    events = await services.teams.events(team.id, task_id=task_id)
    return [BoardEventPublic(**vars_of(e)) for e in events]


@router.get("/v1/teams/{team_id}/questions", response_model=list[Question])
async def questions(
    team_id: str, services: ServicesDep, temporal: TemporalClientDep, principal: CurrentPrincipal
) -> list[Question]:
    """Questions teammates asked the user (ask_user): waiting, answered or timeout."""
    team = await _team(services, principal, team_id)
    handle = temporal.get_workflow_handle_for(TeamBoardWorkflow.run, team.board_id)
    return await handle.query(TeamBoardWorkflow.questions)


class ActionIn(BaseModel):
    """A person's move on the board: the same fields as the ``team_tasks`` tool."""

    model_config = {"extra": "forbid"}

    action: str = Field(examples=["approve"])
    task_id: str = ""
    feedback: str = ""
    text: str = ""
    kind: str = "note"
    question_id: str = ""
    answer: str = ""
    assignee: str | None = None
    title: str = ""
    description: str | None = None
    blocked_by: list[str] | None = None
    name: str = ""
    content: str = ""


@router.post("/v1/teams/{team_id}/actions")
async def act(
    team_id: str, body: ActionIn, services: ServicesDep, temporal: TemporalClientDep,
    principal: CurrentPrincipal,
) -> Any:  # fmt: skip
    """Approve, reject, answer a question, comment, assign...; illegal moves are 409."""
    team = await _team(services, principal, team_id)
    try:
        actor = f"user:{principal.user_id or principal.key_id}"
        action = BoardAction.model_validate({**body.model_dump(exclude_none=True), "actor": actor})
    except ValueError as exc:
        raise ApiError(422, "invalid_request", str(exc)) from None
    try:
        return await board_act(services, temporal, team.tenant_id, team.id, action)
    except BoardRefusal as refusal:
        raise ApiError(409, refusal.code, refusal.message) from None


@router.get("/v1/teams/{team_id}/events")
async def board_events(
    team_id: str, services: ServicesDep, principal: CurrentPrincipal, after: int = 0,
    follow: bool = True,
) -> StreamingResponse:  # fmt: skip
    """Server-Sent Events: every change of the board, in order, from ``after``;
    ``follow=false`` ends after what is there."""
    team = await _team(services, principal, team_id)

    async def stream() -> AsyncIterator[str]:
        seen = after
        while True:
            for event in await services.teams.events(team.id, after=seen):
                seen = event.seq
                data = {**vars_of(event), "created_at": event.created_at.isoformat()}
                yield f"event: {event.action}\ndata: {json.dumps(data)}\n\n"
            if not follow:
                return
            await asyncio.sleep(EVENT_POLL_SECONDS)

    return StreamingResponse(stream(), media_type="text/event-stream")


def vars_of(event: Any) -> dict[str, Any]:
    fields = ("seq", "task_id", "action", "actor", "detail", "created_at")
    return {name: getattr(event, name) for name in fields}
