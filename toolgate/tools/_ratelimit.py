"""Rate limiting by session key (DESIGN §2 step 5).

The pipeline depends only on the RateLimiter protocol. ``TokenBucketLimiter`` here is
for one process (unit tests, embedded use); workers use the Postgres implementation in
``toolgate.store`` so the limit holds across every worker process.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class RateLimit:
    """``per_minute`` calls on average, bursts of up to ``burst``."""

    per_minute: float = 60.0
    burst: int = 20

    @property
    def per_second(self) -> float:
        return self.per_minute / 60.0


class RateLimiter(Protocol):
    async def allow(self, key: str) -> bool:
        """Take one token for ``key``; False when the key is over its limit."""
        ...


class TokenBucketLimiter:
    """In-process token bucket; the clock is injectable so tests need no sleeps."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self._limit = limit
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = asyncio.Lock()

    async def allow(self, key: str) -> bool:
        async with self._lock:
            now = self._clock()
            tokens, last = self._buckets.get(key, (float(self._limit.burst), now))
            tokens = min(float(self._limit.burst), tokens + (now - last) * self._limit.per_second)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                return False
            self._buckets[key] = (tokens - 1.0, now)
            return True
