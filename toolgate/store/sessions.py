"""Sessions (conversations) and their messages, written by the agent loop."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..providers import Message
from .ids import parse_uuid, tenant_row
from .models import SessionMessageRow, SessionRow


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    tenant_id: str
    agent_id: str
    user_id: str
    channel: str
    chat_id: str
    runs: int
    created_at: datetime

    @property
    def current_run(self) -> str | None:
        return f"agentrun-{self.id}-{self.runs}" if self.runs else None


def _session(row: SessionRow) -> Session:
    return Session(str(row.id), row.tenant_id, str(row.agent_id), row.user_id, row.channel,
                   row.chat_id, row.runs, row.created_at)  # fmt: skip


class SessionStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def create(
        self, tenant_id: str, agent_id: str, user_id: str, channel: str, chat_id: str
    ) -> Session:
        row = SessionRow(id=uuid.uuid4(), tenant_id=tenant_id, agent_id=uuid.UUID(agent_id),
                         user_id=user_id, channel=channel, chat_id=chat_id, runs=0)  # fmt: skip
        async with self._sessions() as session, session.begin():
            session.add(row)
            await session.flush()
            await session.refresh(row)
        return _session(row)

    async def get(self, tenant_id: str, session_id: str) -> Session | None:
        async with self._sessions() as session:
            row = await tenant_row(session, SessionRow, tenant_id, session_id)
            return _session(row) if row else None

    async def find(self, tenant_id: str, agent_id: str | None = None) -> list[Session]:
        query = select(SessionRow).where(SessionRow.tenant_id == tenant_id)
        if agent_id is not None:
            key = parse_uuid(agent_id)
            if key is None:
                return []
            query = query.where(SessionRow.agent_id == key)
        async with self._sessions() as session:
            rows = await session.scalars(query.order_by(SessionRow.created_at.desc()).limit(200))
            return [_session(r) for r in rows]

    async def next_run(self, tenant_id: str, session_id: str) -> str:
        """Count one more run and return its workflow id (``agentrun-<session>-<n>``)."""
        async with self._sessions() as session, session.begin():
            runs = await session.scalar(
                update(SessionRow)
                .where(SessionRow.id == uuid.UUID(session_id), SessionRow.tenant_id == tenant_id)
                .values(runs=SessionRow.runs + 1)
                .returning(SessionRow.runs)
            )
        return f"agentrun-{session_id}-{runs}"

    async def record(self, session_id: str, first_seq: int, messages: list[Message]) -> None:
        """Idempotent: a retried activity writes the same rows again, nothing twice."""
        if not messages:
            return
        rows = [{"session_id": uuid.UUID(session_id), "seq": first_seq + i,
                 "message": m.model_dump(mode="json")} for i, m in enumerate(messages)]  # fmt: skip
        async with self._sessions() as session, session.begin():
            await session.execute(insert(SessionMessageRow).values(rows).on_conflict_do_nothing())

    async def messages(self, session_id: str, offset: int = 0, limit: int = 100) -> list[Message]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(SessionMessageRow)
                .where(SessionMessageRow.session_id == uuid.UUID(session_id))
                .order_by(SessionMessageRow.seq)
                .offset(offset)
                .limit(limit)
            )
            return [Message.model_validate(r.message) for r in rows]

    async def count(self, session_id: str) -> int:
        async with self._sessions() as session:
            value = await session.scalar(
                select(func.count()).where(SessionMessageRow.session_id == uuid.UUID(session_id))
            )
            return int(value or 0)
