"""The `toolgate` command as a user runs it: real processes, real exit codes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from toolgate.devstack import free_port

from ..helpers import SECRET_KEYS

TOOLGATE = [sys.executable, "-m", "toolgate"]


def run_toolgate(
    *args: str, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TOOLGATE, *args], input=stdin, capture_output=True, text=True, timeout=60,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


@pytest.mark.parametrize("command", ["migrate", "api", "worker"])
def test_postgres_down_at_start_is_one_clear_line_and_a_non_zero_exit(command: str) -> None:
    port = free_port()  # nothing listens there
    url = f"postgresql://u:pw@127.0.0.1:{port}/db"
    result = run_toolgate(
        command, env={"TOOLGATE_DATABASE_URL": url, "TOOLGATE_SECRET_KEYS": SECRET_KEYS}
    )
    assert result.returncode == 1
    assert result.stderr.startswith(
        f"error: cannot connect to Postgres at postgresql+psycopg://u:***@127.0.0.1:{port}/db"
    )
    assert "TOOLGATE_DATABASE_URL" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_database_url_says_what_to_set() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLGATE_DATABASE_URL"}
    result = subprocess.run(
        [*TOOLGATE, "migrate"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 1
    assert "TOOLGATE_DATABASE_URL is not set" in result.stderr


def test_scrub_reads_stdin_and_writes_scrubbed_stdout() -> None:
    text = "ok line\nAWS_SECRET=AKIAIOSFODNN7EXAMPLE\nurl postgres://a:longpassword@h/db\n"
    result = run_toolgate("scrub", stdin=text, env={"TOOLGATE_SCRUB_VALUES": "ok line"})
    assert result.returncode == 0
    assert result.stdout == "[REDACTED]\nAWS_SECRET=[REDACTED]\nurl postgres://a:[REDACTED]@h/db\n"


def test_dev_refuses_a_port_in_use_naming_the_port_and_the_flag(tmp_path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_toolgate("dev", "--data-dir", str(tmp_path), "--ui-port", str(port))
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"error: port {port} (Temporal Web UI) is already in use on 127.0.0.1; "
        "choose another with --ui-port"
    )
    assert not (tmp_path / "postgres").exists()  # nothing was started


@pytest.mark.parametrize(
    ("args", "code", "verdict"),
    [(["rm -rf /"], 1, {"allowed": False, "group": "destructive_ops"}),
     (["sh -c 'ls -la'"], 0, {"allowed": True, "group": None}),
     (["nmap -sV host", "--off", "network_recon"], 0, {"allowed": True}),
     (["pip install x"], 1, {"group": "package_install", "needs_approval": True}),
     ([""], 1, {"group": "unparseable"})],
)  # fmt: skip
def test_check_command_prints_the_guards_verdict(args: list[str], code: int, verdict: dict) -> None:
    import json

    result = run_toolgate("check-command", *args)
    assert result.returncode == code, result.stderr
    printed = json.loads(result.stdout)
    assert {k: printed[k] for k in verdict} == verdict
    assert set(printed) == {"allowed", "group", "reason", "needs_approval"}


def test_check_command_refuses_an_unknown_group() -> None:
    result = run_toolgate("check-command", "ls", "--off", "everything")
    assert result.returncode == 2 and "unknown deny group 'everything'" in result.stderr
