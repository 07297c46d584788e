"""Subagents, delegations and agent links: watch and steer a run's children.

Listing reads the Postgres mirror the children keep (it outlives runs and workers).
Cancel and steer go through the parent run as Workflow Updates, so the parent's own
record stays the truth its LLM sees; a child whose parent has ended (an async
delegation) is cancelled directly.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, Field
from temporalio.client import WorkflowUpdateFailedError
from temporalio.service import RPCError

from ...conversations import is_running
from ...services import Services
from ...store import ChildRun, DuplicateLink, Principal
from ...workflows import AgentRunWorkflow, ChildRecord, SteerRequest
from ..deps import AdminPrincipal, CurrentPrincipal, ServicesDep, TemporalClientDep, load_agent
from ..errors import ApiError

router = APIRouter(tags=["subagents"])


class ChildRunPublic(BaseModel):
    id: str
    kind: str
    """``spawn`` (a subagent) or ``delegate`` (another agent's run)."""
    mode: str
    parent_id: str
    agent_id: str
    target_agent_id: str
    label: str
    task: str
    state: str
    """``running``, ``completed``, ``failed``, ``cancelled`` or ``max_iterations``."""
    result: str
    archived: bool
    created_at: datetime | None
    ended_at: datetime | None
    archived_at: datetime | None


def _public(child: ChildRun) -> ChildRunPublic:
    return ChildRunPublic(
        id=child.id, kind=child.kind, mode=child.mode, parent_id=child.parent_id,
        agent_id=child.agent_id, target_agent_id=child.target_agent_id, label=child.label,
        task=child.task, state=child.state, result=child.result, archived=child.archived,
        created_at=child.created_at, ended_at=child.ended_at, archived_at=child.archived_at,
    )  # fmt: skip


class SteerIn(BaseModel):
    task: str = Field(min_length=1, max_length=100_000, examples=["Summarise only the errors"])


class LinkIn(BaseModel):
    source_agent_id: str
    target_agent_id: str
    direction: Literal["outbound", "bidirectional"] = "outbound"
    """outbound: source may delegate to target; bidirectional: both ways."""
    modes: list[Literal["sync", "async"]] = Field(default=["sync", "async"], min_length=1)


class LinkPublic(BaseModel):
    id: str
    source_agent_id: str
    target_agent_id: str
    direction: str
    modes: list[str]
    created_at: datetime


IncludeArchived = Annotated[bool, Query(description="also list archived children")]


async def _child(services: Services, principal: Principal, child_id: str) -> ChildRun:
    found = await services.child_runs.get(principal.tenant_id, child_id)
    if found is None:
        raise ApiError(404, "subagent_not_found", f"no subagent {child_id!r} in your tenant")
    return found


@router.get("/v1/runs/{run_id}/subagents", response_model=list[ChildRunPublic])
async def run_subagents(
    run_id: str, services: ServicesDep, principal: CurrentPrincipal,
    include_archived: IncludeArchived = False,
) -> list[ChildRunPublic]:  # fmt: skip
    """The run's subagents and delegations, oldest first (archived ones on request)."""
    tenant = principal.tenant_id
    every = await services.child_runs.find(tenant, parent_id=run_id, include_archived=True)
    if not every and not await _own_session_run(services, tenant, run_id):
        raise ApiError(404, "run_not_found", f"no run {run_id!r} in your tenant")
    return [_public(c) for c in every if include_archived or not c.archived]


async def _own_session_run(services: Services, tenant_id: str, run_id: str) -> bool:
    parts = run_id.removeprefix("agentrun-").rsplit("-", 1)
    if not run_id.startswith("agentrun-") or len(parts) != 2:
        return False
    return await services.sessions_store.get(tenant_id, parts[0]) is not None


@router.get("/v1/subagents/{child_id}", response_model=ChildRunPublic)
async def get_subagent(
    child_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> ChildRunPublic:
    return _public(await _child(services, principal, child_id))


@router.post("/v1/subagents/{child_id}/cancel", response_model=ChildRunPublic)
async def cancel_subagent(
    child_id: str, services: ServicesDep, temporal: TemporalClientDep, principal: CurrentPrincipal
) -> ChildRunPublic:
    """Cancel a running subagent or delegation (its parent records it as cancelled)."""
    child = await _child(services, principal, child_id)
    _still_running(child)
    parent = temporal.get_workflow_handle_for(AgentRunWorkflow.run, child.parent_id)
    if await is_running(parent):
        record = await _update(parent.execute_update(AgentRunWorkflow.cancel_child, child_id))
        return _public(_merged(child, record))
    await temporal.get_workflow_handle(child_id).cancel()  # an async delegation, orphaned
    return _public(_merged(child, None))


@router.post("/v1/subagents/{child_id}/steer", status_code=201, response_model=ChildRecord)
async def steer_subagent(
    child_id: str, body: SteerIn, services: ServicesDep, temporal: TemporalClientDep,
    principal: CurrentPrincipal,
) -> ChildRecord:  # fmt: skip
    """Cancel a running subagent and start a new one with this task (same label)."""
    child = await _child(services, principal, child_id)
    if child.kind != "spawn":
        raise ApiError(409, "not_steerable", f"{child_id} is a delegation; cancel it instead")
    _still_running(child)
    parent = temporal.get_workflow_handle_for(AgentRunWorkflow.run, child.parent_id)
    if not await is_running(parent):
        raise ApiError(409, "run_finished", f"its run {child.parent_id} has finished")
    request = SteerRequest(id=child_id, task=body.task)
    return await _update(parent.execute_update(AgentRunWorkflow.steer_child, request))


def _still_running(child: ChildRun) -> None:
    if child.state != "running":
        raise ApiError(409, "subagent_finished", f"{child.id} has already ended ({child.state})")


async def _update(call: Awaitable[ChildRecord]) -> ChildRecord:
    """A Workflow Update's answer; its validator's refusal becomes 409."""
    try:
        result = await call
    except WorkflowUpdateFailedError as exc:
        cause = getattr(exc.cause, "message", str(exc.cause))
        raise ApiError(409, "subagent_finished", cause) from None
    except RPCError as exc:
        raise ApiError(409, "run_finished", f"the parent run is no longer running: {exc}") from None
    assert isinstance(result, ChildRecord)
    return result


def _merged(child: ChildRun, record: ChildRecord | None) -> ChildRun:
    return replace(child, state=record.state if record else "cancelled")


@router.get("/v1/delegations", response_model=list[ChildRunPublic])
async def list_delegations(
    services: ServicesDep, principal: CurrentPrincipal, agent_id: str | None = None,
    include_archived: IncludeArchived = False,
) -> list[ChildRunPublic]:  # fmt: skip
    """Your tenant's delegations, to or from ``agent_id`` when given."""
    found = await services.child_runs.find(
        principal.tenant_id, kind="delegate", agent_id=agent_id, include_archived=include_archived
    )
    return [_public(c) for c in found]


@router.post("/v1/agent-links", status_code=201, response_model=LinkPublic)
async def create_link(body: LinkIn, services: ServicesDep, principal: AdminPrincipal) -> LinkPublic:
    """Let one agent delegate to another (both of your tenant)."""
    source = await load_agent(services, principal, body.source_agent_id)
    target = await load_agent(services, principal, body.target_agent_id)
    if source.id == target.id:
        raise ApiError(422, "invalid_link", "an agent cannot be linked to itself; use spawn")
    try:
        link = await services.agent_links.create(
            principal.tenant_id, source.id, target.id, body.direction, list(body.modes)
        )
    except DuplicateLink:
        raise ApiError(409, "link_exists", "these agents are linked already; delete the link "
                       "to change it")  from None  # fmt: skip
    return LinkPublic(**{k: getattr(link, k) for k in LinkPublic.model_fields})


@router.get("/v1/agent-links", response_model=list[LinkPublic])
async def list_links(services: ServicesDep, principal: CurrentPrincipal) -> list[LinkPublic]:
    links = await services.agent_links.find(principal.tenant_id)
    return [LinkPublic(**{k: getattr(link, k) for k in LinkPublic.model_fields}) for link in links]


@router.delete("/v1/agent-links/{link_id}", status_code=204)
async def delete_link(link_id: str, services: ServicesDep, principal: AdminPrincipal) -> Response:
    if not await services.agent_links.delete(principal.tenant_id, link_id):
        raise ApiError(404, "link_not_found", f"no agent link {link_id!r} in your tenant")
    return Response(status_code=204)
