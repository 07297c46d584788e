"""Config change notifications over Postgres LISTEN/NOTIFY (DESIGN §4).

A write publishes inside its own transaction, so the notification is delivered when
(and only if) the change commits. The payload names the tenant (``*`` for platform
changes, which touch every tenant) and what changed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

CHANNEL = "toolgate_config"
ALL_TENANTS = "*"


@dataclass(frozen=True, slots=True)
class ConfigChange:
    tenant_id: str
    """A tenant id, or ``*`` for a platform-wide change."""
    kind: str
    """``policy``, ``settings``, ``agent``, ``secret``, ``tenant``."""

    def encode(self) -> str:
        return json.dumps({"tenant": self.tenant_id, "kind": self.kind})

    @classmethod
    def decode(cls, payload: str) -> ConfigChange:
        try:
            data = json.loads(payload)
            return cls(str(data["tenant"]), str(data["kind"]))
        except (ValueError, KeyError, TypeError):
            return cls(ALL_TENANTS, "unknown")  # unreadable: assume everything changed


ChangeHook = Callable[[ConfigChange], None]


def ignore_changes(_change: ConfigChange) -> None:
    return None


async def publish(session: AsyncSession, change: ConfigChange) -> None:
    """Announce ``change`` to every process when the session's transaction commits."""
    await session.execute(
        text("SELECT pg_notify(:channel, :payload)"),
        {"channel": CHANNEL, "payload": change.encode()},
    )
    session.info.setdefault("changes", []).append(change)


@asynccontextmanager
async def writing(
    sessions: async_sessionmaker[AsyncSession], on_change: ChangeHook = ignore_changes
) -> AsyncIterator[AsyncSession]:
    """A write transaction; after it commits, this process hears its own changes at once.

    Other processes hear them through NOTIFY; the writer must not wait for its own
    notification, or a caller that writes then reads could see the old config.
    """
    async with sessions() as session:
        async with session.begin():
            yield session
        for change in session.info.pop("changes", []):
            on_change(change)


def libpq_dsn(url: str) -> str:
    """The SQLAlchemy URL as a plain libpq DSN, for psycopg's own connections."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
