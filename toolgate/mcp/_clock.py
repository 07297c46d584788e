"""Time as the MCP manager sees it, injected so tests can run 10 reconnect attempts
with 60 s back-off in no time."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    async def sleep(self, seconds: float) -> None: ...

    def monotonic(self) -> float: ...


class RealClock:
    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def monotonic(self) -> float:
        return time.monotonic()


class ManualClock:
    """A clock that moves only when told: ``advance(30)`` wakes what sleeps ≤ 30 s."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        future = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, future))
        try:
            await future
        finally:
            self._sleepers = [s for s in self._sleepers if s[1] is not future]

    def monotonic(self) -> float:
        return self.now

    @property
    def sleeping(self) -> list[float]:
        """How long each current sleeper still has to wait."""
        return sorted(deadline - self.now for deadline, _ in self._sleepers)

    async def advance(self, seconds: float) -> None:
        self.now += seconds
        for deadline, future in list(self._sleepers):
            if deadline <= self.now and not future.done():
                future.set_result(None)
        await asyncio.sleep(0)
