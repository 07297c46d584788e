"""Running a credentialed binary: argv straight to the kernel, no shell in between."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .._model import ToolContext, ToolResult
from ..builtin._process import ENV_ALLOW, run_process
from ._adapters import get_adapter
from ._binaries import CliBinary

log = logging.getLogger("toolgate.security")


async def run_credentialed(binary: CliBinary, argv: list[str], ctx: ToolContext) -> ToolResult:
    adapter = get_adapter(binary.adapter)
    injection = adapter.prepare(argv, binary.env) if adapter.should_inject(argv) else None
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    env["HOME"] = str(ctx.workspace)
    full = list(argv)
    if injection is not None:
        env.update(injection.env)
        full = [argv[0], *injection.argv_prefix, *argv[1:]]
        # One structured line per injection (spec §8a): names, never values.
        log.warning(
            "security.system_env_injection",
            extra={
                "event": "security.system_env_injection",
                "tenant_id": ctx.tenant_id,
                "agent_id": ctx.agent_id,
                "tool_call_id": ctx.tool_call_id,
                "binary": binary.binary_name,
                "adapter": adapter.name,
                "env_names": sorted(injection.env),
            },
        )
    try:
        return await run_process(full, Path(ctx.workspace), binary.timeout_seconds, env=env)
    finally:
        if injection is not None and injection.cleanup is not None:
            injection.cleanup()
