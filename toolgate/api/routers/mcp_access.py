"""Who may use an MCP server: agent and user grants (admin), and access requests a
user files and an admin approves or rejects (docs/mcp.md)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from ...store import AccessRequestRecord, GrantRecord, GrantRefused, RequestConflict, Role
from ..deps import AdminPrincipal, CurrentPrincipal, ServicesDep
from ..errors import ApiError
from ..mcp_schemas import AccessRequestIn, AccessRequestPublic, DecisionIn, GrantIn, GrantPublic
from .mcp_servers import not_found

router = APIRouter(prefix="/v1/mcp", tags=["mcp"])
Kind = Literal["agents", "users"]


def _grant(record: GrantRecord) -> GrantPublic:
    return GrantPublic(**asdict(record))


def _request(record: AccessRequestRecord) -> AccessRequestPublic:
    return AccessRequestPublic(**asdict(record))


def _refused(exc: GrantRefused | RequestConflict) -> ApiError:
    return ApiError(422 if isinstance(exc, GrantRefused) else 409, exc.code, str(exc))


@router.get("/servers/{server_id}/grants", response_model=list[GrantPublic])
async def list_grants(
    server_id: str, services: ServicesDep, principal: AdminPrincipal
) -> list[GrantPublic]:
    grants = await services.mcp_grants.grants(principal.tenant_id, server_id)
    if grants is None:
        raise not_found(server_id)
    return [_grant(g) for g in grants]


@router.put("/servers/{server_id}/grants/{kind}/{subject_id}", response_model=GrantPublic)
async def put_grant(
    server_id: str, kind: Kind, subject_id: str, body: GrantIn, services: ServicesDep,
    principal: AdminPrincipal,
) -> GrantPublic:  # fmt: skip
    """Grant an agent (or a user) the server's tools: all, or ``tool_allow`` minus
    ``tool_deny``. Replaces an earlier grant; the next call already sees it."""
    try:
        grant = await services.mcp_grants.grant(
            principal.tenant_id, server_id, "agent" if kind == "agents" else "user", subject_id,
            body.tool_allow, body.tool_deny,
        )  # fmt: skip
    except GrantRefused as exc:
        raise _refused(exc) from None
    if grant is None:
        raise await _missing(services, principal.tenant_id, server_id, kind[:-1], subject_id)
    return _grant(grant)


async def _missing(
    services: ServicesDep, tenant_id: str, server_id: str, who: str, subject_id: str
) -> ApiError:
    """Which of the two was not found in the tenant."""
    if await services.mcp_servers.get(tenant_id, server_id) is None:
        return not_found(server_id)
    return ApiError(404, f"{who}_not_found", f"no {who} {subject_id!r} in your tenant")


@router.delete("/servers/{server_id}/grants/{kind}/{subject_id}", status_code=204)
async def revoke_grant(
    server_id: str, kind: Kind, subject_id: str, services: ServicesDep, principal: AdminPrincipal
) -> Response:
    """Revoke: the next call of the server's tools is refused, without a restart."""
    who: Literal["agent", "user"] = "agent" if kind == "agents" else "user"
    if not await services.mcp_grants.revoke(principal.tenant_id, server_id, who, subject_id):
        raise ApiError(404, "grant_not_found", f"no grant of MCP server {server_id!r} to "
                       f"{who} {subject_id!r}")  # fmt: skip
    return Response(status_code=204)


@router.post("/servers/{server_id}/access-requests", status_code=201,
             response_model=AccessRequestPublic)  # fmt: skip
async def request_access(
    server_id: str, body: AccessRequestIn, services: ServicesDep, principal: CurrentPrincipal
) -> AccessRequestPublic:
    """A user asks for the server (or some of its tools); an admin decides."""
    user_id = principal.user_id or ""
    if body.user_id and body.user_id != user_id:
        if principal.role is Role.USER:
            raise ApiError(403, "forbidden", "a user key asks for its own user only")
        user_id = body.user_id
    if not user_id:
        raise ApiError(422, "user_required", "this key names no user: use a key made for a "
                       "user, or (as an admin) give user_id")  # fmt: skip
    try:
        found = await services.mcp_grants.request(
            principal.tenant_id, server_id, user_id, body.tool_allow, body.reason
        )
    except (GrantRefused, RequestConflict) as exc:
        raise _refused(exc) from None
    if found is None:
        raise await _missing(services, principal.tenant_id, server_id, "user", user_id)
    return _request(found)


@router.get("/access-requests", response_model=list[AccessRequestPublic])
async def list_requests(
    services: ServicesDep,
    principal: CurrentPrincipal,
    status: Annotated[Literal["pending", "approved", "rejected"] | None, Query()] = None,
) -> list[AccessRequestPublic]:
    """Admins see the tenant's requests; a user key sees its own."""
    mine = principal.user_id or "" if principal.role is Role.USER else None
    found = await services.mcp_grants.requests(principal.tenant_id, user_id=mine, status=status)
    return [_request(r) for r in found]


@router.get("/access-requests/{request_id}", response_model=AccessRequestPublic)
async def get_request(
    request_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> AccessRequestPublic:
    found = await services.mcp_grants.get_request(principal.tenant_id, request_id)
    if found is None or (principal.role is Role.USER and found.user_id != principal.user_id):
        raise ApiError(404, "access_request_not_found", f"no access request {request_id!r}")
    return _request(found)


async def _decide(
    request_id: str, body: DecisionIn, services: ServicesDep, principal: AdminPrincipal,
    approve: bool,
) -> AccessRequestPublic:  # fmt: skip
    try:
        found = await services.mcp_grants.decide(
            principal.tenant_id, request_id, approve=approve, decided_by=principal.key_id,
            note=body.note, tool_allow=body.tool_allow,
        )  # fmt: skip
    except (GrantRefused, RequestConflict) as exc:
        raise _refused(exc) from None
    if found is None:
        raise ApiError(404, "access_request_not_found", f"no access request {request_id!r}")
    return _request(found)


@router.post("/access-requests/{request_id}/approve", response_model=AccessRequestPublic)
async def approve_request(
    request_id: str, body: DecisionIn, services: ServicesDep, principal: AdminPrincipal
) -> AccessRequestPublic:
    """Approve: the user's grant is written in the same transaction."""
    return await _decide(request_id, body, services, principal, approve=True)


@router.post("/access-requests/{request_id}/reject", response_model=AccessRequestPublic)
async def reject_request(
    request_id: str, body: DecisionIn, services: ServicesDep, principal: AdminPrincipal
) -> AccessRequestPublic:
    return await _decide(request_id, body, services, principal, approve=False)
