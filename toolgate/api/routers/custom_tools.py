"""Custom shell tools (spec §7): CRUD, tenant-scoped, optionally for one agent."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Response

from ...services import Services
from ...store import CustomToolNameTaken, Principal
from ...tools import CustomToolDef, check_definition, render
from ...tools.errors import InvalidConfig
from ...tools.shell import check_command, merge_deny_groups
from ..deps import AdminPrincipal, CurrentPrincipal, ServicesDep, load_agent
from ..env_values import env_var, patched_env
from ..errors import ApiError, config_error
from ..schemas import CustomToolCreate, CustomToolPublic, CustomToolUpdate

router = APIRouter(prefix="/v1/custom-tools", tags=["custom tools"])


def _not_found(tool_id: str) -> ApiError:
    return ApiError(404, "custom_tool_not_found", f"no custom tool {tool_id!r} in your tenant")


def _sample(schema: dict[str, Any]) -> dict[str, Any]:
    """Harmless arguments of the right shape, to judge the template itself."""
    sample: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        if isinstance(prop, dict) and prop.get("enum"):
            sample[name] = prop["enum"][0]
        elif isinstance(prop, dict) and prop.get("type") in {"integer", "number"}:
            sample[name] = 1
        else:
            sample[name] = "x"
    return sample


async def _checked(services: Services, principal: Principal, d: CustomToolDef) -> None:
    try:
        check_definition(d.name, d.parameters, d.command, d.timeout_seconds, d.env,
                         services.registry.names())  # fmt: skip
    except InvalidConfig as exc:
        raise config_error(exc) from None
    if d.agent_id is not None:
        await load_agent(services, principal, d.agent_id)
    platform = await services.tenants.platform_value("shell_deny_groups")
    tenant = (await services.tenants.other_config(principal.tenant_id)).get("shell_deny_groups")
    verdict = check_command(render(d.command, _sample(dict(d.parameters))),
                            merge_deny_groups(platform, tenant))  # fmt: skip
    if not verdict.allowed and not verdict.needs_approval:
        raise ApiError(
            422,
            "command_denied",
            f"the command template is denied by shell deny group {verdict.group!r}: "
            f"{verdict.reason}",
            group=verdict.group or "",
            field="command",
        )


@router.post("", status_code=201, response_model=CustomToolPublic)
async def create_custom_tool(
    body: CustomToolCreate, services: ServicesDep, principal: AdminPrincipal
) -> CustomToolPublic:
    """Define a shell tool; agents whose policy admits it see it on their next call."""
    definition = CustomToolDef(
        id="",
        tenant_id=principal.tenant_id,
        name=body.name,
        description=body.description,
        parameters=body.parameters,
        command=body.command,
        agent_id=body.agent_id,
        timeout_seconds=body.timeout_seconds,
        enabled=body.enabled,
        env={k: env_var(v) for k, v in body.env.items()},
    )
    await _checked(services, principal, definition)
    try:
        record = await services.custom_tools.create(definition)
    except CustomToolNameTaken as exc:
        raise ApiError(409, "custom_tool_exists", str(exc)) from None
    return CustomToolPublic.model_validate(record)


@router.get("", response_model=list[CustomToolPublic])
async def list_custom_tools(
    services: ServicesDep, principal: CurrentPrincipal
) -> list[CustomToolPublic]:
    records = await services.custom_tools.list(principal.tenant_id)
    return [CustomToolPublic.model_validate(r) for r in records]


@router.get("/{tool_id}", response_model=CustomToolPublic)
async def get_custom_tool(
    tool_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> CustomToolPublic:
    record = await services.custom_tools.get(principal.tenant_id, tool_id)
    if record is None:
        raise _not_found(tool_id)
    return CustomToolPublic.model_validate(record)


@router.patch("/{tool_id}", response_model=CustomToolPublic)
async def update_custom_tool(
    tool_id: str, body: CustomToolUpdate, services: ServicesDep, principal: AdminPrincipal
) -> CustomToolPublic:
    """Change some fields. Env names given replace their value (null removes one)."""
    current = await services.custom_tools.get_definition(principal.tenant_id, tool_id)
    if current is None:
        raise _not_found(tool_id)
    changes = body.model_dump(exclude_unset=True, exclude={"env"})
    env = patched_env(current.env, body.env)
    updated = replace(current, **changes, env=env)
    await _checked(services, principal, updated)
    try:
        record = await services.custom_tools.replace(updated)
    except CustomToolNameTaken as exc:
        raise ApiError(409, "custom_tool_exists", str(exc)) from None
    if record is None:
        raise _not_found(tool_id)
    return CustomToolPublic.model_validate(record)


@router.delete("/{tool_id}", status_code=204)
async def delete_custom_tool(
    tool_id: str, services: ServicesDep, principal: AdminPrincipal
) -> Response:
    if not await services.custom_tools.delete(principal.tenant_id, tool_id):
        raise _not_found(tool_id)
    return Response(status_code=204)
