"""`toolgate dev` end to end: start, serve a call, stop cleanly, keep data."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import httpx
import psutil

from toolgate.devstack import free_port


def _start(data: Path, ports: dict[str, int]) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "toolgate", "dev", "--data-dir", str(data)]
    for flag, port in ports.items():
        args += [f"--{flag}", str(port)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _wait_ready(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line.startswith("Press Ctrl-C"):
            return "".join(seen)
    raise AssertionError("toolgate dev exited early:\n" + "".join(seen))


def _stop(proc: subprocess.Popen[str]) -> tuple[int, set[int]]:
    children = {c.pid for c in psutil.Process(proc.pid).children(recursive=True)}
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(60)
    alive = {
        pid
        for pid in children
        if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"
    }
    return code, alive


def test_dev_stack_serves_stops_every_child_and_keeps_its_data(tmp_path: Path) -> None:
    ports = {
        "api-port": free_port(),
        "temporal-port": free_port(),
        "ui-port": free_port(),
        "pg-port": free_port(),
    }
    data = tmp_path / "data"
    api = f"http://127.0.0.1:{ports['api-port']}"

    proc = _start(data, ports)
    banner = _wait_ready(proc)
    assert f"Temporal UI   http://127.0.0.1:{ports['ui-port']}" in banner
    agent = httpx.post(
        f"{api}/v1/agents",
        json={"tenant_id": "acme", "name": "coder", "allowed_tools": ["group:fs"]},
    ).json()
    write = httpx.post(
        f"{api}/v1/tools/write_file/invoke",
        json={"agent_id": agent["id"], "arguments": {"path": "a.txt", "content": "kept"}},
        timeout=30,
    )
    assert write.status_code == 200, write.text
    ui = httpx.get(f"http://127.0.0.1:{ports['ui-port']}/", timeout=10)
    assert ui.status_code == 200
    code, alive = _stop(proc)
    assert code == 0 and alive == set()

    proc = _start(data, ports)
    _wait_ready(proc)
    try:
        read = httpx.post(
            f"{api}/v1/tools/read_file/invoke",
            json={"agent_id": agent["id"], "arguments": {"path": "a.txt"}},
            timeout=30,
        )
        assert read.json()["result"]["for_llm"] == "kept"
        workflows = subprocess.run(
            [str(Path(sys.executable).parent / "temporal"), "workflow", "count",
             "--address", f"127.0.0.1:{ports['temporal-port']}"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert "Total: 2" in workflows.stdout  # the write survived the restart in Temporal too
    finally:
        code, alive = _stop(proc)
    assert code == 0 and alive == set()
