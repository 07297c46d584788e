"""The exec tool itself (the gate's command guard arrives with shell deny groups)."""

from __future__ import annotations

import os
from pathlib import Path
from types import MappingProxyType

import psutil

from toolgate.tools import ToolContext
from toolgate.tools.builtin import ExecLimits
from toolgate.tools.builtin.runtime import Exec


def _ctx(tmp_path: Path, **settings: object) -> ToolContext:
    return ToolContext(
        tenant_id="acme",
        agent_id="a1",
        workspace=tmp_path / "ws",
        settings=MappingProxyType(dict(settings)),
    )


async def test_runs_in_the_workspace_and_reports_the_exit_code(tmp_path: Path) -> None:
    result = await Exec().execute(_ctx(tmp_path), {"command": "pwd; exit 3"})
    assert result.is_error and result.error_code == "command_failed"
    assert result.for_llm == f"exit code 3\n{tmp_path / 'ws'}\n"


async def test_worker_secrets_do_not_reach_the_child(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TOOLGATE_SECRET_KEYS", "k:do-not-leak")
    result = await Exec().execute(_ctx(tmp_path), {"command": "env"})
    assert "do-not-leak" not in result.for_llm and "TOOLGATE" not in result.for_llm
    assert f"HOME={tmp_path / 'ws'}" in result.for_llm


async def test_timeout_from_settings_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "ws" / "grandchild.pid"
    command = "sleep 300 & echo $! > grandchild.pid; wait"
    result = await Exec().execute(_ctx(tmp_path, timeout_seconds=1), {"command": command})
    assert result.error_code == "tool_timeout"
    assert "within 1 s" in result.for_llm and "exec.timeout_seconds" in result.for_llm
    grandchild = int(pid_file.read_text())
    assert not psutil.pid_exists(grandchild) or psutil.Process(grandchild).status() == "zombie"


async def test_output_is_capped_and_the_cut_is_said(tmp_path: Path) -> None:
    tool = Exec(ExecLimits(max_output_bytes=1000))
    command = "head -c 500000 /dev/zero | tr '\\0' x"
    result = await tool.execute(_ctx(tmp_path), {"command": command})
    assert not result.is_error
    assert result.for_llm.endswith("[output cut at 1000 bytes]")
    assert result.for_llm.split("\n")[1] == "x" * 1000


async def test_exit_zero_is_ok(tmp_path: Path) -> None:
    result = await Exec().execute(_ctx(tmp_path), {"command": "echo hi"})
    assert (result.is_error, result.for_llm) == (False, "exit code 0\nhi\n")
    assert os.path.isdir(tmp_path / "ws")
