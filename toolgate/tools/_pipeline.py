"""The governed tool call: DESIGN §2 steps 2-9 as plain functions, and their order.

Step 1 (building the ToolContext) happens where the context arrives (Temporal headers
in the worker); everything after it lives here so unit tests drive the whole gate
without Temporal. The worker supplies an ``Executor`` for step 7 that runs the tool
inside the Temporal activity; the default runs it in-process.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from ._mcp import McpBridge
from ._model import Capability, ToolContext, ToolResult
from ._policy import PolicyRequest, check_allowed
from ._ports import AgentConfig, AuditEntry, AuditLog, ConfigSource
from ._ratelimit import RateLimiter
from ._registry import Registry
from ._schema import validate_arguments
from ._scrubber import Scrubber
from ._tool import Tool
from .errors import (
    InfrastructureError,
    RateLimited,
    ToolFailed,
    ToolgateError,
    ToolNotAllowed,
    ToolRefusal,
)

Executor = Callable[[Tool, ToolContext, Mapping[str, Any]], Awaitable[ToolResult]]
RegistryResolver = Callable[[ToolContext], Awaitable[Registry]]


class CommandGuard(Protocol):
    """Step 6: decides whether a shell command may run (shell deny groups)."""

    async def check(self, ctx: ToolContext, command: str, tool: str) -> None:
        """Raise a ToolRefusal if ``command`` (which ``tool`` would run) is denied."""
        ...


@runtime_checkable
class CommandTool(Protocol):
    """A tool that runs a shell command; step 6 inspects the command it would run."""

    def command_for(self, args: Mapping[str, Any]) -> str: ...


# --- the steps ------------------------------------------------------------------


def resolve_tool(registry: Registry, name: str) -> Tool:
    """Step 2."""
    return registry.get(name)


def policy_request(ctx: ToolContext) -> PolicyRequest:
    return PolicyRequest(
        provider=ctx.provider,
        channel=ctx.channel,
        chat_id=ctx.chat_id,
        subagent_depth=ctx.subagent_depth,
        request_allow=ctx.request_allow,
    )


async def load_config(configs: ConfigSource, ctx: ToolContext) -> AgentConfig | None:
    """The agent's config, read once per call; a store that fails refuses the call."""
    try:
        return await configs.agent_config(ctx.tenant_id, ctx.agent_id)
    except ToolgateError:
        raise
    except Exception as exc:  # fail closed: no config, no call (credentials included)
        raise InfrastructureError(f"configuration store unavailable: {exc}") from exc


def check_policy(
    config: AgentConfig | None, registry: Registry, ctx: ToolContext, name: str
) -> ToolContext:
    """Step 3: the tool must be in the agent's effective tool list (spec §6).

    Returns the context with this tool's merged settings (spec §9), read here so the
    tool sees the configuration of this turn, not of the worker's start.
    """
    if config is None:
        raise ToolNotAllowed(f"agent {ctx.agent_id} does not exist in tenant {ctx.tenant_id}")
    check_allowed(config.resolution(registry, policy_request(ctx)), name, ctx.agent_id)
    settings, _tier = config.settings.merged(name)
    return replace(
        ctx,
        settings=MappingProxyType(dict(settings)),
        scrub_values=(*ctx.scrub_values, *config.secret_values),
        shell_deny_groups=MappingProxyType(dict(config.shell_deny_groups)),
        cli_binaries=MappingProxyType(dict(config.cli_binaries)),
        keyword_rules=config.keyword_rules,
    )


def check_arguments(tool: Tool, args: object) -> None:
    """Step 4."""
    validate_arguments(tool.spec.name, tool.spec.parameters, args)


async def check_rate_limit(limiter: RateLimiter, ctx: ToolContext) -> None:
    """Step 5: the limit is per session key (per agent when the call has none)."""
    key = ctx.session_key or f"{ctx.tenant_id}:{ctx.agent_id}"
    if not await limiter.allow(key):
        raise RateLimited("rate limit exceeded for this session; wait and try again")


async def check_command(
    guard: CommandGuard | None, tool: Tool, ctx: ToolContext, args: Mapping[str, Any]
) -> None:
    """Step 6: only tools that run shell commands are inspected."""
    if not isinstance(tool, CommandTool):
        return
    if guard is None:
        raise ToolNotAllowed("no command guard is configured; shell tools are refused")
    await guard.check(ctx, tool.command_for(args), tool.spec.name)


async def execute_with_timeout(tool: Tool, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    """Step 7: run the tool; refusals and crashes become error results."""
    timeout = tool.spec.timeout_seconds
    try:
        async with asyncio.timeout(timeout):
            return await tool.execute(ctx, args)
    except TimeoutError:
        return ToolResult.error(
            "tool_timeout", f"tool {tool.spec.name!r} did not finish within {timeout:g} s"
        )
    except ToolRefusal as exc:
        return ToolResult.error(exc.code, exc.message, exc.details)
    except InfrastructureError:
        raise
    except Exception as exc:  # the tool's own bug: report, never crash the worker
        failure = ToolFailed(f"tool {tool.spec.name!r} failed: {type(exc).__name__}: {exc}")
        return ToolResult.error(failure.code, failure.message)


def scrub_result(scrubber: Scrubber, result: ToolResult, ctx: ToolContext) -> ToolResult:
    """Step 8: both channels, with this call's injected secrets too."""
    return result.model_copy(
        update={
            "for_llm": scrubber.scrub(result.for_llm, ctx.scrub_values),
            "for_user": scrubber.scrub(result.for_user, ctx.scrub_values),
            "details": {k: scrubber.scrub(v, ctx.scrub_values) for k, v in result.details.items()},
        }
    )


def scrub_value(scrubber: Scrubber, value: Any, extra: tuple[str, ...] = ()) -> Any:
    """Scrub every string inside a JSON-like value (for the audit log)."""
    if isinstance(value, str):
        return scrubber.scrub(value, extra)
    if isinstance(value, Mapping):
        return {str(k): scrub_value(scrubber, v, extra) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_value(scrubber, v, extra) for v in value]
    return value


# --- the order -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Governance:
    """Everything the gate needs, injected; one instance per worker."""

    registry_for: RegistryResolver
    configs: ConfigSource
    limiter: RateLimiter
    scrubber: Scrubber
    audit: AuditLog
    command_guard: CommandGuard | None = None
    mcp: McpBridge | None = None
    """The worker's MCP connections; without it MCP tools are refused as unavailable."""


async def governed_call(
    gov: Governance,
    ctx: ToolContext,
    tool_name: str,
    args: Any,
    execute: Executor = execute_with_timeout,
) -> ToolResult:
    """Run steps 2-9 for one call and return the scrubbed result.

    Refusals are audited like any other outcome. Infrastructure errors propagate
    unaudited: the call will be retried or failed by Temporal, and the retry writes
    the record.
    """
    started = time.perf_counter()
    outcome = "refused"
    try:
        config = await load_config(gov.configs, ctx)
        registry = await gov.registry_for(ctx)
        if config is not None:
            registry = config.registry(registry, gov.mcp)  # custom and MCP tools, phase two
        tool = resolve_tool(registry, tool_name)
        ctx = check_policy(config, registry, ctx, tool_name)
        check_arguments(tool, args)
        await check_rate_limit(gov.limiter, ctx)
        await check_command(gov.command_guard, tool, ctx, args)
        replay = await _earlier_result(gov.audit, registry, ctx, tool_name)
        if replay is not None:
            return replay
        raw = await execute(tool, ctx, args)
        outcome = "tool_error" if raw.is_error else "ok"
    except ToolRefusal as exc:
        raw = ToolResult.error(exc.code, exc.message, exc.details)
    result = scrub_result(gov.scrubber, raw, ctx)
    await gov.audit.record(
        AuditEntry(
            tool_call_id=ctx.tool_call_id,
            tenant_id=ctx.tenant_id,
            agent_id=ctx.agent_id,
            user_id=ctx.user_id,
            session_key=ctx.session_key,
            tool=tool_name,
            arguments=scrub_value(gov.scrubber, args, ctx.scrub_values),
            outcome=outcome,
            error_code=result.error_code,
            duration_ms=(time.perf_counter() - started) * 1000.0,
            result=result,
        )
    )
    return result


async def _earlier_result(
    audit: AuditLog, registry: Registry, ctx: ToolContext, tool_name: str
) -> ToolResult | None:
    """A mutating call whose id already ran returns the recorded result, not a rerun."""
    if not ctx.tool_call_id:
        return None
    if registry.describe(tool_name).capability is Capability.READ_ONLY:
        return None
    try:
        return await audit.completed(ctx.tool_call_id)
    except Exception as exc:
        raise InfrastructureError(f"audit log unavailable: {exc}") from exc


__all__ = [
    "CommandGuard",
    "CommandTool",
    "Executor",
    "Governance",
    "check_arguments",
    "check_command",
    "check_policy",
    "check_rate_limit",
    "execute_with_timeout",
    "governed_call",
    "load_config",
    "policy_request",
    "resolve_tool",
    "scrub_result",
    "scrub_value",
]
