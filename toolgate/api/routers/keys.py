"""API keys of your tenant (admin)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from ...services import Services
from ...store import MASTER_TENANT, Role
from ..deps import AdminPrincipal, ServicesDep
from ..errors import ApiError
from ..schemas import KeyCreate, KeyCreated, KeyPublic

router = APIRouter(prefix="/v1/keys", tags=["keys"])


async def create_key(services: Services, tenant_id: str, body: KeyCreate) -> KeyCreated:
    role = Role(body.role)
    if role is Role.MASTER and tenant_id != MASTER_TENANT:
        raise ApiError(
            422, "invalid_role", "master keys belong to the master tenant; use admin or user"
        )
    if body.user_id is not None and await services.users.get(tenant_id, body.user_id) is None:
        raise ApiError(404, "user_not_found", f"no user {body.user_id!r} in this tenant")
    key, plaintext = await services.keys.create(tenant_id, role, body.label, body.user_id)
    return KeyCreated(**KeyPublic.model_validate(key).model_dump(), key=plaintext)


@router.post("", status_code=201, response_model=KeyCreated)
async def create_own_key(
    body: KeyCreate, services: ServicesDep, principal: AdminPrincipal
) -> KeyCreated:
    """A new key for your tenant. The response holds the key; it is not shown again."""
    if Role(body.role) is Role.MASTER and principal.role is not Role.MASTER:
        raise ApiError(403, "forbidden", "only a master key can create master keys")
    return await create_key(services, principal.tenant_id, body)


@router.get("", response_model=list[KeyPublic])
async def list_keys(services: ServicesDep, principal: AdminPrincipal) -> list[KeyPublic]:
    return [KeyPublic.model_validate(k) for k in await services.keys.list(principal.tenant_id)]


@router.delete("/{key_id}", status_code=204)
async def revoke_key(key_id: str, services: ServicesDep, principal: AdminPrincipal) -> Response:
    """Revoke a key of your tenant; it stops working on the next request."""
    if not await services.keys.revoke(principal.tenant_id, key_id):
        raise ApiError(404, "key_not_found", f"no active key {key_id!r} in your tenant")
    return Response(status_code=204)
