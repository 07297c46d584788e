"""Tenants (master scope) and the keys of any tenant."""

from __future__ import annotations

from fastapi import APIRouter, Response

from ...store import MASTER_TENANT, Role, TenantExists
from ..deps import CurrentPrincipal, MasterPrincipal, ServicesDep
from ..errors import ApiError
from ..schemas import KeyCreate, KeyCreated, TenantCreate, TenantPublic
from .keys import create_key

router = APIRouter(prefix="/v1/tenants", tags=["tenants"])


def _not_found(tenant_id: str) -> ApiError:
    return ApiError(404, "tenant_not_found", f"no tenant {tenant_id!r}")


@router.post("", status_code=201, response_model=TenantPublic)
async def create_tenant(
    body: TenantCreate, services: ServicesDep, _: MasterPrincipal
) -> TenantPublic:
    """Create a tenant; then give it an admin key with POST /v1/tenants/{id}/keys."""
    try:
        tenant = await services.tenants.create(body.id, body.name)
    except TenantExists as exc:
        raise ApiError(409, "tenant_exists", str(exc)) from None
    return TenantPublic.model_validate(tenant)


@router.get("", response_model=list[TenantPublic])
async def list_tenants(services: ServicesDep, _: MasterPrincipal) -> list[TenantPublic]:
    return [TenantPublic.model_validate(t) for t in await services.tenants.list()]


@router.get("/{tenant_id}", response_model=TenantPublic)
async def get_tenant(
    tenant_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> TenantPublic:
    """A master key sees any tenant; other keys see their own only."""
    if principal.role is not Role.MASTER and tenant_id != principal.tenant_id:
        raise _not_found(tenant_id)
    tenant = await services.tenants.get(tenant_id)
    if tenant is None:
        raise _not_found(tenant_id)
    return TenantPublic.model_validate(tenant)


@router.delete("/{tenant_id}", status_code=204)
async def delete_tenant(tenant_id: str, services: ServicesDep, _: MasterPrincipal) -> Response:
    """Delete a tenant and everything it owns (agents, keys, settings, secrets)."""
    if tenant_id == MASTER_TENANT:
        raise ApiError(409, "tenant_protected", "the master tenant cannot be deleted")
    if not await services.tenants.delete(tenant_id):
        raise _not_found(tenant_id)
    return Response(status_code=204)


@router.post("/{tenant_id}/keys", status_code=201, response_model=KeyCreated)
async def create_tenant_key(
    tenant_id: str, body: KeyCreate, services: ServicesDep, _: MasterPrincipal
) -> KeyCreated:
    """A key for any tenant (the way an operator hands a new tenant its first admin key)."""
    if await services.tenants.get(tenant_id) is None:
        raise _not_found(tenant_id)
    return await create_key(services, tenant_id, body)
