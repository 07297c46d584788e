"""Real MCP servers, written with the SDK, started by the tests: the example notes
server over stdio, SSE or streamable HTTP on 127.0.0.1, and an odd one that announces
broken tools."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolgate.devstack import free_port
from toolgate.tools import McpServerConfig

ROOT = Path(__file__).parents[2]
NOTES = ROOT / "examples" / "mcp" / "notes_server.py"
ODD = Path(__file__).parent / "servers" / "odd_server.py"


def notes_stdio(name: str = "notes", **extra: object) -> McpServerConfig:
    return McpServerConfig(name=name, command=sys.executable, args=[str(NOTES)], **extra)  # type: ignore[arg-type]


def odd_stdio() -> McpServerConfig:
    return McpServerConfig(name="odd", command=sys.executable, args=[str(ODD)])


@dataclass
class HttpNotes:
    """The notes server as a process on a port; ``kill`` and ``start`` it at will."""

    transport: str
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        path = "/sse" if self.transport == "sse" else "/mcp"
        return f"http://127.0.0.1:{self.port}{path}"

    def config(self, name: str = "notes", **extra: object) -> McpServerConfig:
        return McpServerConfig(name=name, transport=self.transport, url=self.url,  # type: ignore[arg-type]
                               **extra)  # type: ignore[arg-type]  # fmt: skip

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(NOTES), self.transport, str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until it accepts connections
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError(f"the notes server did not listen on {self.port}")

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def _http(transport: str) -> Iterator[HttpNotes]:
    server = HttpNotes(transport, free_port())
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def sse_notes() -> Iterator[HttpNotes]:
    yield from _http("sse")


@pytest.fixture
def http_notes() -> Iterator[HttpNotes]:
    yield from _http("streamable-http")
