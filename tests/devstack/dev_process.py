"""`toolgate dev` as a child process, the way a user starts and stops it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import psutil


def start_dev(data: Path, ports: dict[str, int]) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "toolgate", "dev", "--data-dir", str(data)]
    for flag, port in ports.items():
        args += [f"--{flag}", str(port)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_ready(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line.startswith("Press Ctrl-C"):
            return "".join(seen)
    raise AssertionError("toolgate dev exited early:\n" + "".join(seen))


def stop_dev(proc: subprocess.Popen[str]) -> tuple[int, set[int]]:
    children = {c.pid for c in psutil.Process(proc.pid).children(recursive=True)}
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(60)
    alive = {
        pid
        for pid in children
        if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"
    }
    return code, alive
