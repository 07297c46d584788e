"""The tenant and global layers of the tool policy (docs/policy.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ...tools import GroupCatalog, ToolPolicy, policy_warnings
from ..deps import AdminPrincipal, CurrentPrincipal, MasterPrincipal, ServicesDep
from ..schemas import PolicyPublic, ToolPolicyModel
from .agents import checked_policy

router = APIRouter(tags=["policy"])


def _public(services: ServicesDep, scope: str, stored: dict[str, Any]) -> PolicyPublic:
    policy = ToolPolicy.from_json(stored)
    catalog = GroupCatalog(services.registry, policy.groups)
    return PolicyPublic(
        scope=scope, tool_policy=stored, warnings=policy_warnings(policy, catalog, scope)
    )


@router.get("/v1/policy", response_model=PolicyPublic)
async def get_tenant_policy(services: ServicesDep, principal: CurrentPrincipal) -> PolicyPublic:
    """Your tenant's layer, applied between the global one and each agent's."""
    return _public(services, "tenant", await services.tenants.tenant_policy(principal.tenant_id))


@router.put("/v1/policy", response_model=PolicyPublic)
async def set_tenant_policy(
    body: ToolPolicyModel, services: ServicesDep, principal: AdminPrincipal
) -> PolicyPublic:
    checked_policy(body, "tenant")
    await services.tenants.set_tenant_policy(principal.tenant_id, body.stored())
    return _public(services, "tenant", body.stored())


@router.get("/v1/global/policy", response_model=PolicyPublic)
async def get_global_policy(services: ServicesDep, _: CurrentPrincipal) -> PolicyPublic:
    """The platform's layer; every tenant's pipeline starts from it."""
    return _public(services, "global", await services.tenants.platform_policy())


@router.put("/v1/global/policy", response_model=PolicyPublic)
async def set_global_policy(
    body: ToolPolicyModel, services: ServicesDep, _: MasterPrincipal
) -> PolicyPublic:
    """Master scope only (spec §9 guard)."""
    checked_policy(body, "global")
    await services.tenants.set_platform_policy(body.stored())
    return _public(services, "global", body.stored())
