"""Checking ports before starting anything, so a clash is one clear line."""

from __future__ import annotations

import socket
from dataclasses import dataclass


class PortInUse(RuntimeError):
    """A port toolgate needs is taken; the message names it and the flag to change it."""


@dataclass(frozen=True, slots=True)
class PortNeed:
    port: int
    what: str
    flag: str


def ensure_free(host: str, needs: list[PortNeed]) -> None:
    """Raise PortInUse for the first port that is already bound on ``host``."""
    for need in needs:
        if not is_free(host, need.port):
            raise PortInUse(
                f"port {need.port} ({need.what}) is already in use on {host}; "
                f"choose another with {need.flag}"
            )


def is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port the OS says is free now (for tests and benchmarks)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
