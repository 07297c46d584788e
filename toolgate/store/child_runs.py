"""Subagents and delegations as rows: the tenant-wide count, the listing, the archive.

The running rows of a tenant are its concurrency count. Admission takes the tenant
row's lock, counts and inserts in one transaction, so two workers admitting at once
cannot both take the last slot.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .models import ChildRunRow, TenantRow

RUNNING = "running"


@dataclass(frozen=True, slots=True)
class ChildRun:
    id: str
    tenant_id: str
    kind: str
    """``spawn`` (a subagent of the same agent) or ``delegate`` (another agent)."""
    mode: str
    """``async`` or ``sync``."""
    parent_id: str
    parent_session_id: str | None
    agent_id: str
    target_agent_id: str
    label: str
    task: str
    state: str
    result: str
    created_at: datetime | None = None
    ended_at: datetime | None = None
    archived_at: datetime | None = None

    @property
    def archived(self) -> bool:
        return self.archived_at is not None


def _child(row: ChildRunRow) -> ChildRun:
    return ChildRun(row.id, row.tenant_id, row.kind, row.mode, row.parent_id,
                    row.parent_session_id, str(row.agent_id), str(row.target_agent_id),
                    row.label, row.task, row.state, row.result, row.created_at, row.ended_at,
                    row.archived_at)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Admission:
    admitted: bool
    running: int
    """Running subagents of the tenant, this one included when admitted."""


class ChildRunStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def admit(self, child: ChildRun, max_running: int | None) -> Admission:
        """Record ``child`` as running if the tenant runs fewer than ``max_running`` of
        its kind (None: no limit). Idempotent by id: a retried admission is admitted."""
        async with self._sessions() as session, session.begin():
            await session.execute(
                select(TenantRow.id).where(TenantRow.id == child.tenant_id).with_for_update()
            )
            running = await self._running(session, child.tenant_id, child.kind)
            if await session.get(ChildRunRow, child.id) is not None:
                return Admission(True, running)
            if max_running is not None and running >= max_running:
                return Admission(False, running)
            session.add(ChildRunRow(
                id=child.id, tenant_id=child.tenant_id, kind=child.kind, mode=child.mode,
                parent_id=child.parent_id, parent_session_id=child.parent_session_id,
                agent_id=uuid.UUID(child.agent_id),
                target_agent_id=uuid.UUID(child.target_agent_id), label=child.label,
                task=child.task, state=RUNNING, result="",
            ))  # fmt: skip
        return Admission(True, running + 1)

    @staticmethod
    async def _running(session: AsyncSession, tenant_id: str, kind: str) -> int:
        value = await session.scalar(
            select(func.count()).where(ChildRunRow.tenant_id == tenant_id,
                                       ChildRunRow.kind == kind, ChildRunRow.state == RUNNING)
        )  # fmt: skip
        return int(value or 0)

    async def running_ids(self, tenant_id: str, kind: str) -> list[str]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ChildRunRow.id).where(ChildRunRow.tenant_id == tenant_id,
                                             ChildRunRow.kind == kind,
                                             ChildRunRow.state == RUNNING)
            )  # fmt: skip
            return list(rows)

    async def finish(self, child_id: str, state: str, result: str) -> None:
        """The end state, once: a later (retried or stale) finish changes nothing."""
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ChildRunRow)
                .where(ChildRunRow.id == child_id, ChildRunRow.state == RUNNING)
                .values(state=state, result=result, ended_at=func.now())
            )

    async def archive(self, child_id: str) -> None:
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ChildRunRow)
                .where(ChildRunRow.id == child_id, ChildRunRow.archived_at.is_(None))
                .values(archived_at=func.now())
            )

    async def get(self, tenant_id: str, child_id: str) -> ChildRun | None:
        async with self._sessions() as session:
            row = await session.get(ChildRunRow, child_id)
            return _child(row) if row is not None and row.tenant_id == tenant_id else None

    async def find(
        self, tenant_id: str, *, parent_id: str | None = None, kind: str | None = None,
        agent_id: str | None = None, include_archived: bool = False, limit: int = 200,
    ) -> list[ChildRun]:  # fmt: skip
        query = select(ChildRunRow).where(ChildRunRow.tenant_id == tenant_id)
        if parent_id is not None:
            query = query.where(ChildRunRow.parent_id == parent_id)
        if kind is not None:
            query = query.where(ChildRunRow.kind == kind)
        if agent_id is not None:
            try:
                key = uuid.UUID(agent_id)
            except ValueError:
                return []
            query = query.where(
                (ChildRunRow.agent_id == key) | (ChildRunRow.target_agent_id == key)
            )
        if not include_archived:
            query = query.where(ChildRunRow.archived_at.is_(None))
        async with self._sessions() as session:
            rows = await session.scalars(query.order_by(ChildRunRow.created_at).limit(limit))
            return [_child(r) for r in rows]
