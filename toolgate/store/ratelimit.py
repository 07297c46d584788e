"""A token bucket in Postgres, so a session's limit holds across every worker.

One UPSERT per call, atomic under the row lock: refill by elapsed time on the
database clock (worker clocks may disagree), then take a token if one is there.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..tools import RateLimit
from ..tools.errors import InfrastructureError

_TAKE = text(
    """
    INSERT INTO rate_limit_buckets AS b (key, tokens, updated_at)
    VALUES (:key, :burst - 1, clock_timestamp())
    ON CONFLICT (key) DO UPDATE SET
        tokens = LEAST(:burst, b.tokens
                 + EXTRACT(EPOCH FROM clock_timestamp() - b.updated_at) * :rate) - 1,
        updated_at = clock_timestamp()
    WHERE LEAST(:burst, b.tokens
          + EXTRACT(EPOCH FROM clock_timestamp() - b.updated_at) * :rate) >= 1
    RETURNING tokens
    """
)


class PostgresRateLimiter:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], limit: RateLimit) -> None:
        self._sessions = sessions
        self._limit = limit

    async def allow(self, key: str) -> bool:
        try:
            async with self._sessions() as session, session.begin():
                taken = await session.execute(
                    _TAKE,
                    {"key": key, "burst": float(self._limit.burst), "rate": self._limit.per_second},
                )
                return taken.first() is not None
        except Exception as exc:  # fail closed: no database, no calls
            raise InfrastructureError(f"rate limiter unavailable: {exc}") from exc
