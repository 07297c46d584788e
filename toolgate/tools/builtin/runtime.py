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

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._model import Capability, ToolContext, ToolResult
from .._settings import EXEC_MAX_TIMEOUT, exec_timeout
from .._tool import ToolSpec
from ..errors import InvalidArguments

#: Variables a child may inherit; everything else of the worker's environment stays out.
ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
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
        timeout = exec_timeout(ctx.settings)
        ctx.workspace.mkdir(parents=True, exist_ok=True)
        env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
        env["HOME"] = str(ctx.workspace)
        process = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            command,
            cwd=ctx.workspace,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            async with asyncio.timeout(timeout):
                output, cut = await self._read_capped(process)
                code = await process.wait()
        except TimeoutError:
            _kill_group(process.pid)
            await process.wait()
            return ToolResult.error(
                "tool_timeout",
                f"command did not finish within {timeout} s and was killed "
                "(raise exec.timeout_seconds in the tool settings if it needs longer)",
            )
        except BaseException:
            _kill_group(process.pid)
            raise
        text = output.decode("utf-8", errors="replace")
        if cut:
            text += f"\n[output cut at {self._limits.max_output_bytes} bytes]"
        return ToolResult(
            for_llm=f"exit code {code}\n{text}",
            is_error=code != 0,
            error_code="command_failed" if code != 0 else None,
        )

    async def _read_capped(self, process: asyncio.subprocess.Process) -> tuple[bytes, bool]:
        """Keep reading to the end (so the child never blocks) but keep only the cap."""
        assert process.stdout is not None
        limit = self._limits.max_output_bytes
        kept = bytearray()
        cut = False
        while chunk := await process.stdout.read(65536):
            room = limit - len(kept)
            if len(chunk) > room:
                cut = True
            kept += chunk[: max(room, 0)]
        return bytes(kept), cut


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def runtime_tools(limits: ExecLimits | None = None) -> list[Exec]:
    return [Exec(limits)]
