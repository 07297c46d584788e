"""Teams and the task board's mirror: listing, full-text search, history, events.

The TeamBoard workflow holds the truth and writes every change here (idempotent by
event sequence), so reading a board never touches Temporal and survives it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func, literal_column, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..tools.team import BoardEvent, Task
from .ids import parse_uuid, tenant_row
from .models import SessionRow, TeamEventRow, TeamMemberRow, TeamRow, TeamTaskRow

TEAM_CHANNEL = "team"


class TeamNameTaken(Exception):
    """A team with this name exists in the tenant."""


@dataclass(frozen=True, slots=True)
class Member:
    agent_id: str
    role: str
    session_id: str


@dataclass(frozen=True, slots=True)
class Team:
    id: str
    tenant_id: str
    name: str
    lead_agent_id: str
    members: list[Member]
    created_at: datetime

    @property
    def board_id(self) -> str:
        return f"teamboard-{self.id}"

    def session_of(self, agent_id: str) -> str | None:
        return next((m.session_id for m in self.members if m.agent_id == agent_id), None)

    def roles(self) -> dict[str, str]:
        return {m.agent_id: m.role for m in self.members}


@dataclass(frozen=True, slots=True)
class BoardEventRecord:
    seq: int
    task_id: str
    action: str
    actor: str
    detail: dict[str, Any]
    created_at: datetime


class TeamStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def create(
        self, tenant_id: str, name: str, lead: str, members: list[tuple[str, str]]
    ) -> Team:
        """``members``: (agent id, role), the lead included or not; each member gets
        its team session. Agents must be the tenant's (the caller checks)."""
        roles = {lead: "lead", **{a: r for a, r in members if a != lead}}
        team_id = uuid.uuid4()
        try:
            async with self._sessions() as session, session.begin():
                session.add(TeamRow(id=team_id, tenant_id=tenant_id, name=name,
                                    lead_agent_id=uuid.UUID(lead)))  # fmt: skip
                await session.flush()
                for agent_id, role in roles.items():
                    chat = SessionRow(
                        id=uuid.uuid4(),
                        tenant_id=tenant_id,
                        agent_id=uuid.UUID(agent_id),
                        user_id="",
                        channel=TEAM_CHANNEL,
                        chat_id=str(team_id),
                        runs=0,
                    )
                    session.add(chat)
                    await session.flush()
                    session.add(TeamMemberRow(team_id=team_id, agent_id=uuid.UUID(agent_id),
                                              role=role, session_id=chat.id))  # fmt: skip
        except IntegrityError as exc:
            raise TeamNameTaken(name) from exc
        found = await self.get(tenant_id, str(team_id))
        assert found is not None
        return found

    async def get(self, tenant_id: str, team_id: str) -> Team | None:
        async with self._sessions() as session:
            row = await tenant_row(session, TeamRow, tenant_id, team_id)
            return await self._team(session, row) if row else None

    async def find(self, tenant_id: str, agent_id: str | None = None) -> list[Team]:
        """The tenant's teams, or those ``agent_id`` belongs to."""
        query = select(TeamRow).where(TeamRow.tenant_id == tenant_id)
        if agent_id is not None:
            key = parse_uuid(agent_id)
            if key is None:
                return []
            mine = select(TeamMemberRow.team_id).where(TeamMemberRow.agent_id == key)
            query = query.where(TeamRow.id.in_(mine))
        async with self._sessions() as session:
            rows = list(await session.scalars(query.order_by(TeamRow.created_at)))
            return [await self._team(session, r) for r in rows]

    async def delete(self, tenant_id: str, team_id: str) -> bool:
        async with self._sessions() as session, session.begin():
            row = await tenant_row(session, TeamRow, tenant_id, team_id)
            if row is None:
                return False
            await session.delete(row)
            return True

    @staticmethod
    async def _team(session: AsyncSession, row: TeamRow) -> Team:
        members = await session.scalars(
            select(TeamMemberRow).where(TeamMemberRow.team_id == row.id)
        )
        listed = [Member(str(m.agent_id), m.role, str(m.session_id)) for m in members]
        listed.sort(key=lambda m: (m.role != "lead", m.agent_id))
        return Team(str(row.id), row.tenant_id, row.name, str(row.lead_agent_id), listed,
                    row.created_at)  # fmt: skip

    # -- the mirror --------------------------------------------------------------------

    async def mirror(self, team_id: str, tasks: list[Task], events: list[BoardEvent]) -> None:
        """Write the board's changes; a retried write changes nothing twice."""
        key = uuid.UUID(team_id)
        last = max((e.seq for e in events), default=0)
        async with self._sessions() as session, session.begin():
            if events:
                await session.execute(insert(TeamEventRow).values([
                    {"team_id": key, "seq": e.seq, "task_id": e.task_id, "action": e.action,
                     "actor": e.actor, "detail": e.detail} for e in events
                ]).on_conflict_do_nothing())  # fmt: skip
            for task in tasks:
                values = {"team_id": key, "id": task.id, "number": int(task.id.lstrip("T")),
                          "data": task.model_dump(), "status": task.status, "owner": task.owner,
                          "updated_seq": last}  # fmt: skip
                statement = insert(TeamTaskRow).values(values)
                await session.execute(statement.on_conflict_do_update(
                    index_elements=["team_id", "id"],
                    set_={k: statement.excluded[k] for k in ("data", "status", "owner",
                                                              "updated_seq")},
                    where=TeamTaskRow.updated_seq <= statement.excluded.updated_seq,
                ))  # fmt: skip

    async def tasks(
        self, team_id: str, status: str | None = None, query: str = "", limit: int = 200,
        offset: int = 0,
    ) -> list[Task]:  # fmt: skip
        """Tasks in board order, or ranked by full-text match when ``query`` is set."""
        select_ = select(TeamTaskRow.data).where(TeamTaskRow.team_id == uuid.UUID(team_id))
        if status:
            select_ = select_.where(TeamTaskRow.status == status)
        if query.strip():
            search = func.plainto_tsquery("simple", query)
            vector: ColumnElement[Any] = literal_column(
                "team_tasks.search"
            )  # generated, GIN-indexed (0008)
            select_ = select_.where(vector.op("@@")(search)).order_by(
                func.ts_rank(vector, search).desc(), TeamTaskRow.number
            )
        else:
            select_ = select_.order_by(TeamTaskRow.number)
        async with self._sessions() as session:
            rows = await session.scalars(select_.offset(offset).limit(limit))
            return [Task.model_validate(r) for r in rows]

    async def task(self, team_id: str, task_id: str) -> Task | None:
        async with self._sessions() as session:
            row = await session.get(TeamTaskRow, (uuid.UUID(team_id), task_id))
            return Task.model_validate(row.data) if row is not None else None

    async def events(
        self, team_id: str, after: int = 0, task_id: str | None = None, limit: int = 500
    ) -> list[BoardEventRecord]:
        query = select(TeamEventRow).where(TeamEventRow.team_id == uuid.UUID(team_id),
                                           TeamEventRow.seq > after)  # fmt: skip
        if task_id is not None:
            query = query.where(TeamEventRow.task_id == task_id)
        async with self._sessions() as session:
            rows = await session.scalars(query.order_by(TeamEventRow.seq).limit(limit))
            return [BoardEventRecord(r.seq, r.task_id, r.action, r.actor, r.detail,
                                     r.created_at) for r in rows]  # fmt: skip
