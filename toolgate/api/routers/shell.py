"""Shell deny-group toggles (spec §9) and the approvals of package installs."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from temporalio.service import RPCError

from ...services import Services
from ...store import Approval
from ...tools.errors import InvalidConfig
from ...tools.shell import DENY_GROUPS, check_deny_groups, merge_deny_groups
from ...workflows import ApprovalDecision, ToolCallWorkflow
from ..deps import (
    AdminPrincipal,
    CurrentPrincipal,
    MasterPrincipal,
    ServicesDep,
    TemporalClientDep,
    load_agent,
)
from ..errors import ApiError, config_error
from ..schemas import ApprovalDecide, ApprovalPublic, DenyGroupsPublic

router = APIRouter(tags=["shell"])
KEY = "shell_deny_groups"
_EXAMPLE = Body(examples=[{"network_recon": False, "package_install": True}])


def _checked(value: dict[str, Any]) -> dict[str, bool]:
    try:
        return check_deny_groups(value, KEY)
    except InvalidConfig as exc:
        raise config_error(exc) from None


async def _layers(services: Services, tenant_id: str) -> tuple[dict[str, bool], dict[str, bool]]:
    platform = await services.tenants.platform_value(KEY)
    tenant = (await services.tenants.other_config(tenant_id)).get(KEY) or {}
    return platform, tenant


def _view(scope: str, own: dict[str, bool], *layers: dict[str, bool]) -> DenyGroupsPublic:
    return DenyGroupsPublic(
        scope=scope, shell_deny_groups=own, effective=merge_deny_groups(*layers)
    )


@router.get("/v1/global/shell-deny-groups", response_model=DenyGroupsPublic)
async def get_global(services: ServicesDep, _: CurrentPrincipal) -> DenyGroupsPublic:
    platform = await services.tenants.platform_value(KEY)
    return _view("global", platform, platform)


@router.put("/v1/global/shell-deny-groups", response_model=DenyGroupsPublic)
async def set_global(
    services: ServicesDep, _: MasterPrincipal, toggles: dict[str, Any] = _EXAMPLE
) -> DenyGroupsPublic:
    """Platform defaults (master scope). Groups left out stay denied."""
    value = _checked(toggles)
    await services.tenants.set_platform_value(KEY, value, "settings")
    return _view("global", value, value)


@router.get("/v1/shell-deny-groups", response_model=DenyGroupsPublic)
async def get_tenant(services: ServicesDep, principal: CurrentPrincipal) -> DenyGroupsPublic:
    platform, tenant = await _layers(services, principal.tenant_id)
    return _view("tenant", tenant, platform, tenant)


@router.put("/v1/shell-deny-groups", response_model=DenyGroupsPublic)
async def set_tenant(
    services: ServicesDep, principal: AdminPrincipal, toggles: dict[str, Any] = _EXAMPLE
) -> DenyGroupsPublic:
    """Your tenant's toggles, per key over the global ones."""
    value = _checked(toggles)
    await services.tenants.set_other_config(principal.tenant_id, KEY, value)
    platform, _ = await _layers(services, principal.tenant_id)
    return _view("tenant", value, platform, value)


@router.get("/v1/agents/{agent_id}/shell-deny-groups", response_model=DenyGroupsPublic)
async def get_agent(
    agent_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> DenyGroupsPublic:
    agent = await load_agent(services, principal, agent_id)
    own = agent.other_config.get(KEY) or {}
    return _view("agent", own, *await _layers(services, principal.tenant_id), own)


@router.put("/v1/agents/{agent_id}/shell-deny-groups", response_model=DenyGroupsPublic)
async def set_agent(
    agent_id: str,
    services: ServicesDep,
    principal: AdminPrincipal,
    toggles: dict[str, Any] = _EXAMPLE,
) -> DenyGroupsPublic:
    """The agent's toggles (spec: agents.other_config.shell_deny_groups); agent wins."""
    await load_agent(services, principal, agent_id)
    value = _checked(toggles)
    await services.agents.set_other_config(principal.tenant_id, agent_id, KEY, value)
    return _view("agent", value, *await _layers(services, principal.tenant_id), value)


def _public(approval: Approval) -> ApprovalPublic:
    return ApprovalPublic.model_validate(approval)


@router.get("/v1/approvals", response_model=list[ApprovalPublic])
async def list_approvals(
    services: ServicesDep,
    principal: AdminPrincipal,
    status: Annotated[str, Query(pattern="^(pending|approved|denied|expired|all)$")] = "pending",
) -> list[ApprovalPublic]:
    """Commands waiting for (or given) a decision in your tenant, newest first."""
    found = await services.approvals.list(principal.tenant_id, None if status == "all" else status)
    return [_public(a) for a in found]


@router.get("/v1/approvals/{approval_id}", response_model=ApprovalPublic)
async def get_approval(
    approval_id: str, services: ServicesDep, principal: AdminPrincipal
) -> ApprovalPublic:
    approval = await services.approvals.get(principal.tenant_id, approval_id)
    if approval is None:
        raise ApiError(404, "approval_not_found", f"no approval {approval_id!r} in your tenant")
    return _public(approval)


@router.post("/v1/approvals/{approval_id}", response_model=ApprovalPublic)
async def decide_approval(
    approval_id: str,
    body: ApprovalDecide,
    services: ServicesDep,
    temporal: TemporalClientDep,
    principal: AdminPrincipal,
) -> ApprovalPublic:
    """Approve or deny; the waiting call then runs or ends. A decision is final."""
    existing = await services.approvals.get(principal.tenant_id, approval_id)
    if existing is None:
        raise ApiError(404, "approval_not_found", f"no approval {approval_id!r} in your tenant")
    approved = body.decision == "approve"
    decided = await services.approvals.decide(
        principal.tenant_id, approval_id, approved, principal.key_id
    )
    if decided is None:
        raise ApiError(
            409, "approval_decided", f"approval {approval_id!r} is already {existing.status}"
        )
    handle = temporal.get_workflow_handle(existing.workflow_id)
    try:
        await handle.signal(
            ToolCallWorkflow.decide,
            ApprovalDecision(
                approval_id=approval_id, approved=approved, decided_by=principal.key_id
            ),
        )
    except RPCError:
        await services.approvals.expire(approval_id)
        raise ApiError(
            409, "approval_expired", "the call stopped waiting (timed out); it was not run"
        ) from None
    return _public(decided)


__all__ = ["DENY_GROUPS", "router"]
