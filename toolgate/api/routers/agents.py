from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from ...store import Agent, AgentNameTaken
from ...tools import (
    PolicyRequest,
    ToolPolicy,
    catalog_for,
    check_policy_shape,
    explain,
    policy_warnings,
)
from ...tools.errors import InvalidConfig
from ..deps import AdminPrincipal, CurrentPrincipal, ServicesDep, agent_config, load_agent
from ..errors import ApiError, config_error
from ..schemas import (
    AgentCreate,
    AgentPublic,
    AgentToolsPublic,
    AgentUpdate,
    ExplanationPublic,
    ToolPolicyModel,
)

router = APIRouter(prefix="/v1/agents", tags=["agents"])


def checked_policy(model: ToolPolicyModel, where: str) -> ToolPolicy:
    """The stored form of a policy layer, or a 422 saying what is wrong."""
    policy = ToolPolicy.from_json(model.stored())
    try:
        check_policy_shape(policy, where)
    except InvalidConfig as exc:
        raise config_error(exc) from None
    return policy


async def _public(services: ServicesDep, agent: Agent) -> AgentPublic:
    config = await agent_config(services, agent)
    catalog = catalog_for(config.policy, config.registry(services.registry))
    warnings = policy_warnings(config.policy.agent, catalog, "tool_policy")
    return AgentPublic(
        id=agent.id,
        tenant_id=agent.tenant_id,
        name=agent.name,
        tool_policy=agent.tool_policy,
        tool_settings=agent.tool_settings,
        created_at=agent.created_at,
        warnings=warnings,
    )


@router.post("", status_code=201, response_model=AgentPublic)
async def create_agent(
    body: AgentCreate, services: ServicesDep, principal: AdminPrincipal
) -> AgentPublic:
    """Create an agent in your tenant with its own layer of the tool policy."""
    checked_policy(body.tool_policy, "tool_policy")
    try:
        agent = await services.agents.create(
            principal.tenant_id, body.name, body.tool_policy.stored()
        )
    except AgentNameTaken as exc:
        raise ApiError(409, "agent_exists", str(exc)) from None
    return await _public(services, agent)


@router.get("", response_model=list[AgentPublic])
async def list_agents(services: ServicesDep, principal: CurrentPrincipal) -> list[AgentPublic]:
    return [await _public(services, a) for a in await services.agents.list(principal.tenant_id)]


@router.get("/{agent_id}", response_model=AgentPublic)
async def get_agent(
    agent_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> AgentPublic:
    return await _public(services, await load_agent(services, principal, agent_id))


@router.put("/{agent_id}/tool-policy", response_model=AgentPublic)
async def set_agent_policy(
    agent_id: str, body: AgentUpdate, services: ServicesDep, principal: AdminPrincipal
) -> AgentPublic:
    """Replace the agent's policy layer; workers apply it on the next call."""
    checked_policy(body.tool_policy, "tool_policy")
    agent = await services.agents.set_policy(
        principal.tenant_id, agent_id, body.tool_policy.stored()
    )
    if agent is None:
        await load_agent(services, principal, agent_id)  # raises the 404
        raise AssertionError("unreachable")
    return await _public(services, agent)


@router.delete("/{agent_id}", status_code=204)
async def delete_agent(agent_id: str, services: ServicesDep, principal: AdminPrincipal) -> Response:
    if not await services.agents.delete(principal.tenant_id, agent_id):
        await load_agent(services, principal, agent_id)
    return Response(status_code=204)


@router.get("/{agent_id}/tools", response_model=AgentToolsPublic)
async def agent_tools(
    agent_id: str,
    services: ServicesDep,
    principal: CurrentPrincipal,
    explain_: Annotated[bool, Query(alias="explain")] = False,
    tool: Annotated[str | None, Query(description="Explain this tool only")] = None,
    provider: str = "",
    channel: str = "",
    chat_id: str = "",
    subagent_depth: Annotated[int, Query(ge=0, le=10)] = 0,
    request_allow: Annotated[
        str | None, Query(description="Comma-separated per-request allow list")
    ] = None,
    user_id: Annotated[str, Query(description="As this user sees them (MCP grants)")] = "",
) -> AgentToolsPublic:
    """The tools that reach this agent's LLM; with ``explain=true``, why each does or not."""
    agent = await load_agent(services, principal, agent_id)
    config = await agent_config(services, agent)
    allow = None if request_allow is None else frozenset(e for e in request_allow.split(",") if e)
    request = PolicyRequest(provider, channel, chat_id, subagent_depth, allow)
    registry = config.registry(services.registry)
    resolution = config.resolution(registry, request)
    explained = None
    if explain_ or tool:
        names = [tool] if tool else registry.names()
        explained = [
            ExplanationPublic(
                tool=e.tool,
                reaches_llm=e.reaches_llm,
                decided_by=e.decided_by,
                reason=e.reason,
                trace=list(e.trace),
            )
            for e in (explain(resolution, registry, n) for n in names)
        ]
    return AgentToolsPublic(
        agent_id=agent.id,
        tools=sorted(config.tool_names(registry, request, user_id or principal.user_id or "")),
        warnings=list(resolution.warnings),
        explain=explained,
    )
