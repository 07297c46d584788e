"""Tenant secrets: write-only. Values go in, only masks come out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from ..deps import AdminPrincipal, ServicesDep
from ..errors import ApiError
from ..schemas import SecretPublic, SecretPut

router = APIRouter(prefix="/v1/secrets", tags=["secrets"])
SecretName = Annotated[str, Path(pattern=r"^[A-Za-z0-9_.\-]{1,128}$")]


@router.put("/{name}", response_model=SecretPublic)
async def put_secret(
    name: SecretName, body: SecretPut, services: ServicesDep, principal: AdminPrincipal
) -> SecretPublic:
    """Store (or replace) a secret, encrypted with AES-256-GCM. It is never shown again."""
    info = await services.secrets.put(principal.tenant_id, name, body.value)
    return SecretPublic.model_validate(info)


@router.get("", response_model=list[SecretPublic])
async def list_secrets(services: ServicesDep, principal: AdminPrincipal) -> list[SecretPublic]:
    return [
        SecretPublic.model_validate(s) for s in await services.secrets.list(principal.tenant_id)
    ]


@router.delete("/{name}", status_code=204)
async def delete_secret(
    name: SecretName, services: ServicesDep, principal: AdminPrincipal
) -> Response:
    if not await services.secrets.delete(principal.tenant_id, name):
        raise ApiError(404, "secret_not_found", f"no secret {name!r} in your tenant")
    return Response(status_code=204)
