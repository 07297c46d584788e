"""Credentialed CLI binaries (spec §4, §5): presets, CRUD, grants, keyword allowlist."""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, Response

from ...services import Services
from ...store import BinaryNameTaken, CliBinaryInput, Principal
from ...tools.cli import ADAPTERS, PRESETS, check_binary, check_rules
from ...tools.errors import InvalidConfig, InvalidSettings
from ..deps import AdminPrincipal, CurrentPrincipal, MasterPrincipal, ServicesDep, load_agent
from ..env_values import env_var, patched_env
from ..errors import ApiError, config_error
from ..schemas import (
    CliBinaryCreate,
    CliBinaryPublic,
    CliBinaryUpdate,
    CliPresetPublic,
    KeywordAllowlist,
)

router = APIRouter(tags=["credentialed CLIs"])
ALLOWLIST_KEY = "command_keyword_allowlist"


def _not_found(binary_id: str) -> ApiError:
    return ApiError(404, "cli_binary_not_found", f"no credentialed binary {binary_id!r} here")


def _checked(data: CliBinaryInput) -> CliBinaryInput:
    try:
        check_binary(data.binary_name, tuple(data.deny_args), data.timeout_seconds)
        if data.adapter not in ADAPTERS:
            raise InvalidSettings(
                f"unknown adapter {data.adapter!r}; use one of {', '.join(sorted(ADAPTERS))}",
                field="adapter",
            )
    except InvalidConfig as exc:
        raise config_error(exc) from None
    return data


@router.get("/v1/cli-presets", response_model=list[CliPresetPublic])
async def list_presets(_: CurrentPrincipal) -> list[CliPresetPublic]:
    return [
        CliPresetPublic(
            name=n,
            deny_args=list(p.deny_args),
            timeout_seconds=p.timeout_seconds,
            tips=p.tips,
            adapter=p.adapter,
        )  # fmt: skip
        for n, p in sorted(PRESETS.items())
    ]


@router.post("/v1/cli-binaries", status_code=201, response_model=CliBinaryPublic)
async def create_binary(
    body: CliBinaryCreate, services: ServicesDep, principal: AdminPrincipal
) -> CliBinaryPublic:
    """Register a CLI with its credentials; no agent may run it until granted."""
    preset = PRESETS.get(body.preset or "") if body.preset else None
    if body.preset and preset is None:
        raise ApiError(422, "unknown_preset", f"no preset {body.preset!r}; see GET /v1/cli-presets",
                       field="preset")  # fmt: skip
    data = _checked(
        CliBinaryInput(
            binary_name=body.binary_name,
            env={k: env_var(v) for k, v in body.env.items()},
            deny_args=body.deny_args if body.deny_args is not None
            else list(preset.deny_args if preset else ()),
            timeout_seconds=body.timeout_seconds
            if body.timeout_seconds is not None
            else (preset.timeout_seconds if preset else 60),
            tips=body.tips if body.tips is not None else (preset.tips if preset else ""),
            adapter=body.adapter or (preset.adapter if preset else "passthrough"),
            enabled=body.enabled,
        )
    )  # fmt: skip
    try:
        record = await services.cli_binaries.save(principal.tenant_id, data)
    except BinaryNameTaken as exc:
        raise ApiError(409, "cli_binary_exists", str(exc)) from None
    return CliBinaryPublic.model_validate(record)


@router.get("/v1/cli-binaries", response_model=list[CliBinaryPublic])
async def list_binaries(services: ServicesDep, principal: AdminPrincipal) -> list[CliBinaryPublic]:
    records = await services.cli_binaries.list(principal.tenant_id)
    return [CliBinaryPublic.model_validate(r) for r in records]


@router.get("/v1/cli-binaries/{binary_id}", response_model=CliBinaryPublic)
async def get_binary(
    binary_id: str, services: ServicesDep, principal: AdminPrincipal
) -> CliBinaryPublic:
    record = await services.cli_binaries.get(principal.tenant_id, binary_id)
    if record is None:
        raise _not_found(binary_id)
    return CliBinaryPublic.model_validate(record)


@router.patch("/v1/cli-binaries/{binary_id}", response_model=CliBinaryPublic)
async def update_binary(
    binary_id: str, body: CliBinaryUpdate, services: ServicesDep, principal: AdminPrincipal
) -> CliBinaryPublic:
    """Change fields; env names given replace their value (null removes one)."""
    current = await services.cli_binaries.current(principal.tenant_id, binary_id)
    if current is None:
        raise _not_found(binary_id)
    env = patched_env(current.env, body.env)
    changes = body.model_dump(exclude_unset=True, exclude={"env"})
    data = _checked(replace(current, **changes, env=env))
    record = await services.cli_binaries.save(principal.tenant_id, data, binary_id)
    if record is None:
        raise _not_found(binary_id)
    return CliBinaryPublic.model_validate(record)


@router.delete("/v1/cli-binaries/{binary_id}", status_code=204)
async def delete_binary(
    binary_id: str, services: ServicesDep, principal: AdminPrincipal
) -> Response:
    if not await services.cli_binaries.delete(principal.tenant_id, binary_id):
        raise _not_found(binary_id)
    return Response(status_code=204)


async def _grant(
    services: Services, principal: Principal, binary_id: str, agent_id: str, granted: bool
) -> Response:
    await load_agent(services, principal, agent_id)
    if not await services.cli_binaries.grant(principal.tenant_id, binary_id, agent_id, granted):
        raise _not_found(binary_id)
    return Response(status_code=204)


@router.put("/v1/cli-binaries/{binary_id}/grants/{agent_id}", status_code=204)
async def grant_binary(
    binary_id: str, agent_id: str, services: ServicesDep, principal: AdminPrincipal
) -> Response:
    """Let one agent run this binary (an explicit grant is required, spec §4)."""
    return await _grant(services, principal, binary_id, agent_id, True)


@router.delete("/v1/cli-binaries/{binary_id}/grants/{agent_id}", status_code=204)
async def revoke_binary(
    binary_id: str, agent_id: str, services: ServicesDep, principal: AdminPrincipal
) -> Response:
    return await _grant(services, principal, binary_id, agent_id, False)


@router.get("/v1/global/command-keyword-allowlist", response_model=KeywordAllowlist)
async def get_allowlist(services: ServicesDep, _: CurrentPrincipal) -> KeywordAllowlist:
    stored = await services.tenants.platform_value(ALLOWLIST_KEY)
    return KeywordAllowlist(rules=stored.get("rules", []))


@router.put("/v1/global/command-keyword-allowlist", response_model=KeywordAllowlist)
async def set_allowlist(
    body: KeywordAllowlist, services: ServicesDep, _: MasterPrincipal
) -> KeywordAllowlist:
    """The spec's commandKeywordAllowlist (master scope); applies on the next call."""
    try:
        check_rules(body.rules)
    except InvalidConfig as exc:
        raise config_error(exc) from None
    await services.tenants.set_platform_value(ALLOWLIST_KEY, {"rules": body.rules}, "settings")
    return body
