"""Small real tools for exercising the gate: they behave badly on purpose."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from toolgate.tools import Capability, ToolContext, ToolResult, ToolSpec
from toolgate.tools.errors import InfrastructureError

_OBJ: dict[str, Any] = {"type": "object", "additionalProperties": True}


class Echo:
    """Returns its ``text`` argument: lets tests put a credential in tool output."""

    spec = ToolSpec(
        name="echo_text",
        description="Echo text back",
        parameters={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        capability=Capability.READ_ONLY,
    )

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        return ToolResult.ok(str(args["text"]), for_user=f"user sees: {args['text']}")


class Boom:
    spec = ToolSpec(name="boom", description="Always raises", parameters=_OBJ)

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        raise RuntimeError("kaboom with password=hunter2hunter2")


class Hang:
    spec = ToolSpec(name="hang", description="Never finishes", parameters=_OBJ, timeout_seconds=0.2)

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class Counter:
    """Mutating; counts how often it really ran."""

    def __init__(self, name: str = "bump_counter", idempotent: bool = False) -> None:
        self.runs = 0
        self.spec = ToolSpec(
            name=name,
            description="Count runs",
            parameters=_OBJ,
            capability=Capability.MUTATING,
            idempotent=idempotent,
        )

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        self.runs += 1
        return ToolResult.ok(f"run {self.runs}")


class Flaky:
    """Fails with an infrastructure error ``failures`` times, then succeeds."""

    def __init__(self, name: str, capability: Capability, failures: int) -> None:
        self.calls = 0
        self.failures = failures
        self.spec = ToolSpec(name=name, description="Flaky", parameters=_OBJ, capability=capability)

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        self.calls += 1
        if self.calls <= self.failures:
            raise InfrastructureError(f"backend down (call {self.calls})")
        return ToolResult.ok(f"ok after {self.calls} calls")


class WhoAmI:
    """Reports the context it received: shows what crossed the headers."""

    spec = ToolSpec(
        name="whoami_get", description="Report context", parameters=_OBJ,
        capability=Capability.READ_ONLY,
    )  # fmt: skip

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        return ToolResult.ok(
            f"tenant={ctx.tenant_id} agent={ctx.agent_id} user={ctx.user_id} "
            f"session={ctx.session_key} channel={ctx.channel} chat={ctx.chat_id} "
            f"call={ctx.tool_call_id} workspace={ctx.workspace.name}"
        )


class Stub:
    """A tool with any name, capability and groups: stands in for tools of later
    releases (web_search, spawn, MCP tools) where only the policy engine looks."""

    def __init__(
        self, name: str, capability: Capability | None = None, groups: set[str] | None = None
    ) -> None:
        self.spec = ToolSpec(
            name=name,
            description=f"stub {name}",
            parameters=_OBJ,
            capability=capability,
            groups=frozenset(groups or ()),
        )

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        return ToolResult.ok(self.spec.name)


class ShowSettings:
    """Returns the merged settings the gate handed it (spec §9 overlay)."""

    spec = ToolSpec(name="show_settings", description="Show settings", parameters=_OBJ)

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        import json

        return ToolResult.ok(json.dumps(dict(ctx.settings), sort_keys=True))


class Nap:
    """A read-only tool that takes ``seconds`` (default 0.1): for scheduling figures."""

    spec = ToolSpec(
        name="nap",
        description="Wait a moment, then answer",
        parameters={"type": "object", "properties": {"seconds": {"type": "number"}}},
        capability=Capability.READ_ONLY,
    )

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        import asyncio

        await asyncio.sleep(float(args.get("seconds", 0.1)))
        return ToolResult.ok("rested")
