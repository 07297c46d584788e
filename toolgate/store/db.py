"""Engine and session factory, and a start-up check that says clearly what is wrong."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from ..config import normalise_dsn


class DatabaseUnavailable(RuntimeError):
    """Postgres could not be reached; the message names the server and what to do."""


def create_engine(url: str, *, pool_size: int = 10) -> AsyncEngine:
    return create_async_engine(normalise_dsn(url), pool_size=pool_size, pool_pre_ping=True)


def sessionmaker(engine: AsyncEngine) -> async_sessionmaker:  # type: ignore[type-arg]
    return async_sessionmaker(engine, expire_on_commit=False)


def describe(url: str) -> str:
    """The DSN without its password, for error messages and logs."""
    return make_url(normalise_dsn(url)).render_as_string(hide_password=True)


async def ping(engine: AsyncEngine) -> None:
    """Raise DatabaseUnavailable with a one-line reason if Postgres does not answer."""
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as exc:
        reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
        raise DatabaseUnavailable(
            f"cannot connect to Postgres at {describe(str(engine.url))}: {reason}. "
            "Is it running? Set TOOLGATE_DATABASE_URL to a reachable server."
        ) from exc
