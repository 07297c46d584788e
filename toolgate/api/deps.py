"""Dependencies as Annotated aliases, as in FastAPI's full-stack template.

Every route but /healthz needs an API key (``Authorization: Bearer <key>`` or
``X-API-Key``). The principal it resolves to carries the tenant every query is
scoped to; ids of another tenant's rows are answered with 404, never 403, so a key
cannot even learn that they exist.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from temporalio.client import Client

from ..services import Services
from ..store import Agent, Principal, Role
from ..tools import AgentConfig
from .errors import ApiError


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def get_temporal(request: Request) -> Client:
    client: Client = request.app.state.temporal
    return client


ServicesDep = Annotated[Services, Depends(get_services)]
TemporalClientDep = Annotated[Client, Depends(get_temporal)]

_bearer = HTTPBearer(auto_error=False, description="An API key: `Bearer tgk_...`")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="An API key")


async def current_principal(
    services: ServicesDep,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)],
    header: Annotated[str | None, Security(_header)],
) -> Principal:
    key = bearer.credentials if bearer is not None else header
    if not key:
        raise ApiError(
            401,
            "missing_api_key",
            "this endpoint needs an API key: send 'Authorization: Bearer <key>'",
        )
    principal = await services.keys.authenticate(key)
    if principal is None:
        raise ApiError(
            401, "invalid_api_key", "the API key is invalid or revoked; ask an admin for a new one"
        )
    return principal


CurrentPrincipal = Annotated[Principal, Depends(current_principal)]
_RANK = {Role.USER: 0, Role.ADMIN: 1, Role.MASTER: 2}


def _at_least(role: Role, principal: Principal) -> Principal:
    if _RANK[principal.role] < _RANK[role]:
        raise ApiError(
            403,
            "forbidden",
            f"this needs a key with the {role.value} role; yours is {principal.role.value}",
        )
    return principal


async def _admin(principal: CurrentPrincipal) -> Principal:
    return _at_least(Role.ADMIN, principal)


async def _master(principal: CurrentPrincipal) -> Principal:
    return _at_least(Role.MASTER, principal)


AdminPrincipal = Annotated[Principal, Depends(_admin)]
"""An admin (or master) key; acts within its own tenant."""
MasterPrincipal = Annotated[Principal, Depends(_master)]
"""A master key: tenants, global defaults, the codec."""


async def load_agent(services: Services, principal: Principal, agent_id: str) -> Agent:
    agent = await services.agents.get(principal.tenant_id, agent_id)
    if agent is None:
        raise ApiError(
            404,
            "agent_not_found",
            f"no agent with id {agent_id!r} in your tenant; list them with GET /v1/agents",
        )
    return agent


async def agent_config(services: Services, agent: Agent) -> AgentConfig:
    """The config the worker enforces, read through the same (cached) source.

    When it cannot be read (database down, a key that does not open a stored
    credential) nothing is listed or run: 503, fail closed.
    """
    try:
        config = await services.configs.agent_config(agent.tenant_id, agent.id)
    except Exception as exc:
        raise ApiError(
            503,
            "config_unavailable",
            f"the agent's configuration cannot be read ({exc}); nothing was run",
        ) from exc
    if config is None:  # deleted between the lookup and now
        raise ApiError(404, "agent_not_found", f"no agent with id {agent.id!r} in your tenant")
    return config
