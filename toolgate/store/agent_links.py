"""agent_links: which agent may delegate to which, in which modes (spec §4)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .ids import parse_uuid, tenant_row
from .models import AgentLinkRow, AgentRow

DIRECTIONS = ("outbound", "bidirectional")
MODES = ("sync", "async")


class DuplicateLink(Exception):
    """A link between these two agents exists already."""


@dataclass(frozen=True, slots=True)
class AgentLink:
    id: str
    tenant_id: str
    source_agent_id: str
    target_agent_id: str
    direction: str
    modes: list[str]
    created_at: datetime


def _link(row: AgentLinkRow) -> AgentLink:
    return AgentLink(str(row.id), row.tenant_id, str(row.source_agent_id),
                     str(row.target_agent_id), row.direction, list(row.modes),
                     row.created_at)  # fmt: skip


class AgentLinkStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def create(
        self, tenant_id: str, source: str, target: str, direction: str, modes: list[str]
    ) -> AgentLink:
        """Both agents must be the tenant's (the caller checks); raises DuplicateLink."""
        row = AgentLinkRow(id=uuid.uuid4(), tenant_id=tenant_id,
                           source_agent_id=uuid.UUID(source), target_agent_id=uuid.UUID(target),
                           direction=direction, modes=sorted(set(modes)))  # fmt: skip
        try:
            async with self._sessions() as session, session.begin():
                session.add(row)
                await session.flush()
                await session.refresh(row)
        except IntegrityError as exc:
            raise DuplicateLink(f"{source} → {target}") from exc
        return _link(row)

    async def find(self, tenant_id: str) -> list[AgentLink]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(AgentLinkRow).where(AgentLinkRow.tenant_id == tenant_id)
                .order_by(AgentLinkRow.created_at)
            )  # fmt: skip
            return [_link(r) for r in rows]

    async def delete(self, tenant_id: str, link_id: str) -> bool:
        async with self._sessions() as session, session.begin():
            row = await tenant_row(session, AgentLinkRow, tenant_id, link_id)
            if row is None:
                return False
            await session.delete(row)
            return True

    async def delegation_target(
        self, tenant_id: str, source: str, target: str, mode: str
    ) -> str | None:
        """The target agent's id when a link lets ``source`` delegate to ``target`` (an
        id or an agent name) in ``mode``; None otherwise, whatever the reason, so an
        agent of another tenant looks exactly like an unlinked one."""
        source_id = parse_uuid(source)
        if source_id is None:
            return None
        async with self._sessions() as session:
            target_ids = await self._agent_ids(session, tenant_id, target)
            if not target_ids:
                return None
            rows = await session.scalars(
                select(AgentLinkRow).where(
                    AgentLinkRow.tenant_id == tenant_id,
                    or_(
                        and_(AgentLinkRow.source_agent_id == source_id,
                             AgentLinkRow.target_agent_id.in_(target_ids)),
                        and_(AgentLinkRow.direction == "bidirectional",
                             AgentLinkRow.target_agent_id == source_id,
                             AgentLinkRow.source_agent_id.in_(target_ids)),
                    ),
                )
            )  # fmt: skip
            for row in rows:
                if mode in row.modes:
                    other = row.target_agent_id
                    if row.source_agent_id != source_id:
                        other = row.source_agent_id
                    return str(other)
        return None

    @staticmethod
    async def _agent_ids(session: AsyncSession, tenant_id: str, ref: str) -> list[uuid.UUID]:
        key = parse_uuid(ref)
        condition = AgentRow.id == key if key is not None else AgentRow.name == ref
        rows = await session.scalars(
            select(AgentRow.id).where(AgentRow.tenant_id == tenant_id, condition)
        )
        return list(rows)
