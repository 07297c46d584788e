"""PreToolUse: the hooks of an agent, run for every call of a turn before any tool.

The rules live in ``toolgate.tools`` (``run_hooks``); the webhook's HTTP lives here.
"""

from __future__ import annotations

from typing import Any

import httpx

from ..tools import HookOutcome, WebhookHook


async def ask_webhook(
    http: httpx.AsyncClient,
    hook: WebhookHook,
    tool: str,
    args: dict[str, Any],
    context: dict[str, str],
) -> HookOutcome:
    """POST the call to the hook; a missing or garbled answer counts as ``on_error``."""
    body = {"tool": tool, "arguments": args, **context}
    try:
        response = await http.post(hook.url, json=body, timeout=hook.timeout_seconds)
        response.raise_for_status()
        data = response.json()
        decision = data["decision"]
        if decision not in {"allow", "block"}:
            raise ValueError(f"decision {decision!r}")
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
        if hook.on_error == "allow":
            return HookOutcome(allowed=True, arguments=args)
        return HookOutcome(
            allowed=False, arguments=args,
            reason=f"the PreToolUse hook at {hook.url} did not answer ({type(exc).__name__}); "
            "the call was blocked",
        )  # fmt: skip
    if decision == "block":
        reason = str(data.get("reason") or "blocked by a PreToolUse hook")
        return HookOutcome(allowed=False, arguments=args, reason=reason)
    new_args = data.get("arguments")
    return HookOutcome(allowed=True, arguments=new_args if isinstance(new_args, dict) else args)
