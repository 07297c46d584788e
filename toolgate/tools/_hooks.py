"""PreToolUse hooks (spec §3): before any tool of a turn runs, each call may be
blocked or have its arguments rewritten.

Configured per agent (``agents.other_config.hooks``), applied in order:

* ``rewrite`` (built in): for the tools it names, ``set`` overwrites arguments,
  ``defaults`` fills missing ones, ``remove`` drops some;
* ``webhook``: POSTs ``{tool, arguments, tenant_id, agent_id, call_id}`` to a URL and
  reads ``{"decision": "allow"|"block", "reason"?, "arguments"?}``; a timeout, an
  error status or a garbled answer counts as ``on_error`` (``block`` by default:
  a hook that cannot answer does not wave calls through).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field


class RewriteHook(BaseModel):
    type: Literal["rewrite"] = "rewrite"
    tools: list[str] = Field(default_factory=lambda: ["*"])
    set: dict[str, Any] = Field(default_factory=dict)
    defaults: dict[str, Any] = Field(default_factory=dict)
    remove: list[str] = Field(default_factory=list)


class WebhookHook(BaseModel):
    type: Literal["webhook"] = "webhook"
    url: str = Field(pattern=r"^https?://")
    tools: list[str] = Field(default_factory=lambda: ["*"])
    timeout_seconds: float = Field(default=5.0, gt=0, le=30)
    on_error: Literal["block", "allow"] = "block"


Hook = Annotated[RewriteHook | WebhookHook, Field(discriminator="type")]


class HookList(BaseModel):
    hooks: list[Hook] = Field(default_factory=list, max_length=20)


class HookOutcome(BaseModel):
    allowed: bool = True
    arguments: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


def _applies(tools: list[str], name: str) -> bool:
    return "*" in tools or name in tools


WebhookCaller = Callable[[WebhookHook, str, dict[str, Any], dict[str, str]], Awaitable[HookOutcome]]
"""Asks a webhook hook (the HTTP lives at the edge, in the activity)."""


async def run_hooks(
    hooks: list[RewriteHook | WebhookHook],
    tool: str,
    arguments: dict[str, Any],
    context: dict[str, str],
    ask: WebhookCaller,
) -> HookOutcome:
    args = dict(arguments)
    for hook in hooks:
        if not _applies(hook.tools, tool):
            continue
        if isinstance(hook, RewriteHook):
            args = {**hook.defaults, **args, **hook.set}
            for key in hook.remove:
                args.pop(key, None)
            continue
        verdict = await ask(hook, tool, args, context)
        if not verdict.allowed:
            return verdict
        args = verdict.arguments
    return HookOutcome(allowed=True, arguments=args)
