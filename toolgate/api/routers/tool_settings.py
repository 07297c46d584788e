"""Tool settings, 4-tier overlay (spec §9): agent → tenant → global → hardcoded.

Tenant admins write the tenant tier (``/v1/tool-settings``, the spec's tenant-config
endpoint) and the agent tier; the global tier needs a master key (the spec's
master-scope guard). Every write is validated against the tool's typed shape and
refused if it holds something that looks like a credential.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Response

from ...services import Services
from ...store import Agent
from ...tools import SETTINGS_MODELS, SettingsLayers, validate_settings
from ...tools.errors import InvalidConfig
from ..deps import (
    AdminPrincipal,
    CurrentPrincipal,
    MasterPrincipal,
    ServicesDep,
    agent_config,
    load_agent,
)
from ..errors import ApiError, config_error
from ..schemas import ToolSettingsPublic

router = APIRouter(tags=["tool settings"])
_EXAMPLE = Body(examples=[{"timeout_seconds": 120}])


def _tool_name(services: Services, tool: str) -> str:
    if tool not in services.registry and tool not in SETTINGS_MODELS:
        raise ApiError(
            404, "tool_not_found", f"no tool {tool!r} has settings; list them with GET /v1/tools"
        )
    return tool


def _validated(services: Services, tool: str, value: dict[str, Any]) -> dict[str, Any]:
    try:
        return validate_settings(_tool_name(services, tool), value, services.scrubber)
    except InvalidConfig as exc:
        raise config_error(exc) from None


def _known_tools(services: Services) -> list[str]:
    return sorted(set(services.registry.names()) | set(SETTINGS_MODELS))


def _view(tool: str, layers: SettingsLayers) -> ToolSettingsPublic:
    settings, source = layers.merged(tool)
    return ToolSettingsPublic(tool=tool, settings=dict(settings), source=source)


async def _tenant_layers(services: Services, tenant_id: str) -> SettingsLayers:
    return SettingsLayers(
        tenant=await services.tool_settings.tenant(tenant_id),
        platform=await services.tool_settings.platform(),
    )


@router.get("/v1/tool-settings", response_model=list[ToolSettingsPublic])
async def list_tenant_settings(
    services: ServicesDep, principal: CurrentPrincipal
) -> list[ToolSettingsPublic]:
    """What each tool reads in your tenant (before agent overrides), and from which tier."""
    layers = await _tenant_layers(services, principal.tenant_id)
    return [_view(t, layers) for t in _known_tools(services)]


@router.put("/v1/tool-settings/{tool}", response_model=ToolSettingsPublic)
async def set_tenant_settings(
    tool: str,
    services: ServicesDep,
    principal: AdminPrincipal,
    settings: dict[str, Any] = _EXAMPLE,
) -> ToolSettingsPublic:
    """Your tenant's settings for one tool; replaces the global default wholesale."""
    value = _validated(services, tool, settings)
    await services.tool_settings.set_tenant(principal.tenant_id, tool, value)
    return _view(tool, await _tenant_layers(services, principal.tenant_id))


@router.delete("/v1/tool-settings/{tool}", response_model=ToolSettingsPublic)
async def reset_tenant_settings(
    tool: str, services: ServicesDep, principal: AdminPrincipal
) -> ToolSettingsPublic:
    """Reset to the platform default."""
    await services.tool_settings.set_tenant(principal.tenant_id, _tool_name(services, tool), None)
    return _view(tool, await _tenant_layers(services, principal.tenant_id))


@router.get("/v1/global/tool-settings", response_model=list[ToolSettingsPublic])
async def list_global_settings(
    services: ServicesDep, _: CurrentPrincipal
) -> list[ToolSettingsPublic]:
    layers = SettingsLayers(platform=await services.tool_settings.platform())
    return [_view(t, layers) for t in _known_tools(services)]


@router.put("/v1/global/tool-settings/{tool}", response_model=ToolSettingsPublic)
async def set_global_settings(
    tool: str,
    services: ServicesDep,
    _: MasterPrincipal,
    settings: dict[str, Any] = _EXAMPLE,
) -> ToolSettingsPublic:
    """The platform default for one tool. Master scope only (spec §9 guard)."""
    value = _validated(services, tool, settings)
    await services.tool_settings.set_platform(tool, value)
    return _view(tool, SettingsLayers(platform=await services.tool_settings.platform()))


@router.delete("/v1/global/tool-settings/{tool}", response_model=ToolSettingsPublic)
async def reset_global_settings(
    tool: str, services: ServicesDep, _: MasterPrincipal
) -> ToolSettingsPublic:
    await services.tool_settings.set_platform(_tool_name(services, tool), None)
    return _view(tool, SettingsLayers(platform=await services.tool_settings.platform()))


async def _agent_view(services: Services, agent: Agent, tool: str) -> ToolSettingsPublic:
    return _view(tool, (await agent_config(services, agent)).settings)


@router.get("/v1/agents/{agent_id}/tool-settings/{tool}", response_model=ToolSettingsPublic)
async def get_agent_settings(
    agent_id: str, tool: str, services: ServicesDep, principal: CurrentPrincipal
) -> ToolSettingsPublic:
    """What this tool reads when this agent calls it, and from which tier."""
    agent = await load_agent(services, principal, agent_id)
    return await _agent_view(services, agent, _tool_name(services, tool))


@router.put("/v1/agents/{agent_id}/tool-settings/{tool}", response_model=ToolSettingsPublic)
async def set_agent_settings(
    agent_id: str,
    tool: str,
    services: ServicesDep,
    principal: AdminPrincipal,
    settings: dict[str, Any] = _EXAMPLE,
) -> ToolSettingsPublic:
    await load_agent(services, principal, agent_id)
    value = _validated(services, tool, settings)
    agent = await services.agents.set_tool_settings(principal.tenant_id, agent_id, tool, value)
    assert agent is not None
    return _view(tool, SettingsLayers(agent=agent.tool_settings))


@router.delete("/v1/agents/{agent_id}/tool-settings/{tool}", status_code=204)
async def reset_agent_settings(
    agent_id: str, tool: str, services: ServicesDep, principal: AdminPrincipal
) -> Response:
    await load_agent(services, principal, agent_id)
    await services.agents.set_tool_settings(principal.tenant_id, agent_id, tool, None)
    return Response(status_code=204)
