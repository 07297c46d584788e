"""Users of your tenant (admin); keys and tool calls may name one."""

from __future__ import annotations

from fastapi import APIRouter, Response

from ...store import UserNameTaken
from ..deps import AdminPrincipal, ServicesDep
from ..errors import ApiError
from ..schemas import UserCreate, UserPublic

router = APIRouter(prefix="/v1/users", tags=["users"])


def _not_found(user_id: str) -> ApiError:
    return ApiError(404, "user_not_found", f"no user {user_id!r} in your tenant")


@router.post("", status_code=201, response_model=UserPublic)
async def create_user(
    body: UserCreate, services: ServicesDep, principal: AdminPrincipal
) -> UserPublic:
    try:
        user = await services.users.create(principal.tenant_id, body.name, body.email)
    except UserNameTaken as exc:
        raise ApiError(409, "user_exists", str(exc)) from None
    return UserPublic.model_validate(user)


@router.get("", response_model=list[UserPublic])
async def list_users(services: ServicesDep, principal: AdminPrincipal) -> list[UserPublic]:
    return [UserPublic.model_validate(u) for u in await services.users.list(principal.tenant_id)]


@router.get("/{user_id}", response_model=UserPublic)
async def get_user(user_id: str, services: ServicesDep, principal: AdminPrincipal) -> UserPublic:
    user = await services.users.get(principal.tenant_id, user_id)
    if user is None:
        raise _not_found(user_id)
    return UserPublic.model_validate(user)


@router.delete("/{user_id}", status_code=204)
async def delete_user(user_id: str, services: ServicesDep, principal: AdminPrincipal) -> Response:
    if not await services.users.delete(principal.tenant_id, user_id):
        raise _not_found(user_id)
    return Response(status_code=204)
