"""Tenants and agents; also the PolicySource the governed call reads."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..tools import AgentPolicy
from .models import AgentRow, TenantRow


class AgentNameTaken(ValueError):
    """An agent with this name already exists in the tenant."""


@dataclass(frozen=True, slots=True)
class Agent:
    id: str
    tenant_id: str
    name: str
    allowed_tools: tuple[str, ...]
    created_at: datetime


def _agent(row: AgentRow) -> Agent:
    return Agent(
        id=str(row.id),
        tenant_id=row.tenant_id,
        name=row.name,
        allowed_tools=tuple(row.allowed_tools),
        created_at=row.created_at,
    )


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


class AgentStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def create(self, tenant_id: str, name: str, allowed_tools: list[str]) -> Agent:
        """Create the agent (and its tenant on first use) in one transaction."""
        async with self._sessions() as session, session.begin():
            await session.execute(insert(TenantRow).values(id=tenant_id).on_conflict_do_nothing())
            row = AgentRow(
                id=uuid.uuid4(), tenant_id=tenant_id, name=name, allowed_tools=allowed_tools
            )
            session.add(row)
            try:
                await session.flush()
            except IntegrityError:
                raise AgentNameTaken(
                    f"an agent named {name!r} already exists in tenant {tenant_id!r}"
                ) from None
            await session.refresh(row)
            return _agent(row)

    async def get(self, agent_id: str) -> Agent | None:
        key = _uuid(agent_id)
        if key is None:
            return None
        async with self._sessions() as session:
            row = await session.get(AgentRow, key)
            return _agent(row) if row else None

    async def list(self, tenant_id: str) -> list[Agent]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(AgentRow).where(AgentRow.tenant_id == tenant_id).order_by(AgentRow.name)
            )
            return [_agent(r) for r in rows]

    async def agent_policy(self, tenant_id: str, agent_id: str) -> AgentPolicy | None:
        agent = await self.get(agent_id)
        if agent is None or agent.tenant_id != tenant_id:
            return None
        return AgentPolicy(
            tenant_id=tenant_id, agent_id=agent.id, allowed_tools=agent.allowed_tools
        )
