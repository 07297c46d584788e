from __future__ import annotations

from fastapi import APIRouter, Query

from ...store import Agent, AgentNameTaken
from ...tools import TOOL_GROUPS, Registry
from ..deps import ServicesDep, load_agent
from ..errors import ApiError
from ..schemas import TENANT_PATTERN, AgentCreate, AgentPublic

router = APIRouter(prefix="/v1/agents", tags=["agents"])


def unknown_entries(entries: list[str], registry: Registry) -> list[str]:
    """Warnings for allow-list entries that name nothing (never an error)."""
    warnings = []
    for entry in entries:
        if entry == "*" or entry in registry:
            continue
        if entry.startswith("group:") and entry.removeprefix("group:") in TOOL_GROUPS:
            continue
        warnings.append(f"{entry!r} names no known tool or group")
    return warnings


def _public(agent: Agent, registry: Registry) -> AgentPublic:
    return AgentPublic(
        id=agent.id,
        tenant_id=agent.tenant_id,
        name=agent.name,
        allowed_tools=list(agent.allowed_tools),
        created_at=agent.created_at,
        warnings=unknown_entries(list(agent.allowed_tools), registry),
    )


@router.post("", status_code=201, response_model=AgentPublic)
async def create_agent(body: AgentCreate, services: ServicesDep) -> AgentPublic:
    try:
        agent = await services.agents.create(body.tenant_id, body.name, body.allowed_tools)
    except AgentNameTaken as exc:
        raise ApiError(409, "agent_exists", str(exc)) from None
    return _public(agent, services.registry)


@router.get("", response_model=list[AgentPublic])
async def list_agents(
    services: ServicesDep, tenant_id: str = Query(pattern=TENANT_PATTERN)
) -> list[AgentPublic]:
    return [_public(a, services.registry) for a in await services.agents.list(tenant_id)]


@router.get("/{agent_id}", response_model=AgentPublic)
async def get_agent(agent_id: str, services: ServicesDep) -> AgentPublic:
    return _public(await load_agent(services, agent_id), services.registry)
