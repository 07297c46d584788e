"""Running a shell command for a tool: workspace, reduced environment, process group,
timeout, capped output. Shared by exec and the custom shell tools."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping
from pathlib import Path

from .._model import ToolResult

#: Variables a child may inherit; everything else of the worker's environment stays out.
ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM")
DEFAULT_MAX_OUTPUT = 64 * 1024


async def run_shell(
    command: str,
    workspace: Path,
    timeout: float,
    *,
    env: Mapping[str, str] | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    timeout_hint: str = "",
) -> ToolResult:
    """``/bin/sh -c command``; the result carries the exit code and the output."""
    child_env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    child_env["HOME"] = str(workspace)
    child_env.update(env or {})
    return await run_process(
        ["/bin/sh", "-c", command],
        workspace,
        timeout,
        env=child_env,
        max_output=max_output,
        timeout_hint=timeout_hint,
    )


async def run_process(
    argv: list[str],
    workspace: Path,
    timeout: float,
    *,
    env: Mapping[str, str],
    max_output: int = DEFAULT_MAX_OUTPUT,
    timeout_hint: str = "",
) -> ToolResult:
    """``argv`` in ``workspace`` with exactly ``env``, in its own process group."""
    workspace.mkdir(parents=True, exist_ok=True)
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=workspace,
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except (FileNotFoundError, PermissionError) as exc:
        return ToolResult.error(
            "program_not_found", f"{argv[0]!r} cannot be run on this worker: {exc.strerror}"
        )
    try:
        async with asyncio.timeout(timeout):
            output, cut = await _read_capped(process, max_output)
            code = await process.wait()
    except TimeoutError:
        _kill_group(process.pid)
        await process.wait()
        return ToolResult.error(
            "tool_timeout",
            f"command did not finish within {timeout:g} s and was killed{timeout_hint}",
        )
    except BaseException:
        _kill_group(process.pid)
        raise
    text = output.decode("utf-8", errors="replace")
    if cut:
        text += f"\n[output cut at {max_output} bytes]"
    return ToolResult(
        for_llm=f"exit code {code}\n{text}",
        is_error=code != 0,
        error_code="command_failed" if code != 0 else None,
    )


async def _read_capped(process: asyncio.subprocess.Process, limit: int) -> tuple[bytes, bool]:
    """Keep reading to the end (so the child never blocks) but keep only the cap."""
    assert process.stdout is not None
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
