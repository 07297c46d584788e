"""group:runtime — exec (spec §4).

The command runs with ``/bin/sh -c`` in the caller's workspace, in a new session so a
timeout kills the whole process group (no orphaned grandchildren), with an
environment reduced to an allow list so no worker secret reaches the child. Output is
capped and the cut is said out loud. The timeout comes from the merged settings of
this call (``exec.timeout_seconds``, spec §9), read at execution time.

The gate inspects the command before this runs (step 6, shell deny groups): without a
command guard configured, exec is refused, never run unguarded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._model import Capability, ToolContext, ToolResult
from .._settings import EXEC_MAX_TIMEOUT, exec_timeout
from .._tool import ToolSpec
from ..cli import run_credentialed
from ..errors import CommandDenied, InvalidArguments
from ..shell._analyze import sole_command
from ._process import run_shell

MAX_COMMAND_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class ExecLimits:
    max_output_bytes: int = 64 * 1024


class Exec:
    """Runs one shell command; a CommandTool, so step 6 sees ``command_for``."""

    def __init__(self, limits: ExecLimits | None = None) -> None:
        self._limits = limits or ExecLimits()
        self._spec = ToolSpec(
            name="exec",
            description=(
                "Run a shell command in your workspace. Returns its combined output and "
                "exit code. Long outputs are cut."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "command": {"type": "string", "minLength": 1, "maxLength": MAX_COMMAND_BYTES}
                },
                "required": ["command"],
                "additionalProperties": False,
            },
            capability=Capability.MUTATING,
            groups=frozenset({"runtime"}),
            # The tool enforces the per-call timeout from settings itself; the gate's
            # outer limit only has to be above the largest value allowed.
            timeout_seconds=EXEC_MAX_TIMEOUT + 30,
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def command_for(self, args: Mapping[str, Any]) -> str:
        return str(args.get("command", ""))

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        command = self.command_for(args)
        if "\x00" in command:
            raise InvalidArguments("command contains a NUL byte")
        if ctx.cli_binaries:
            argv = sole_command(command)
            binary = ctx.cli_binaries.get(argv[0].rsplit("/", 1)[-1]) if argv else None
            if argv is not None and binary is not None:
                if ctx.agent_id not in binary.granted_agents:  # the gate checked; so do we
                    raise CommandDenied(
                        f"no grant for {binary.binary_name}", code="cli_not_granted"
                    )
                return await run_credentialed(binary, argv, ctx)
        return await run_shell(
            command,
            ctx.workspace,
            exec_timeout(ctx.settings),
            max_output=self._limits.max_output_bytes,
            timeout_hint=" (raise exec.timeout_seconds in the tool settings if it needs longer)",
        )


def runtime_tools(limits: ExecLimits | None = None) -> list[Exec]:
    return [Exec(limits)]
