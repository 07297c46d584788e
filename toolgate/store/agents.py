"""Agents of a tenant: their tool policy layer and their tool settings overrides.

Every method takes the caller's tenant and never touches another tenant's rows: an
agent id of another tenant is simply not found.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .ids import tenant_row
from .models import AgentRow
from .notify import ChangeHook, ConfigChange, ignore_changes, publish, writing


class AgentNameTaken(ValueError):
    """An agent with this name already exists in the tenant."""


@dataclass(frozen=True, slots=True)
class Agent:
    id: str
    tenant_id: str
    name: str
    tool_policy: dict[str, Any]
    tool_settings: dict[str, Any]
    created_at: datetime
    other_config: dict[str, Any]


def _agent(row: AgentRow) -> Agent:
    return Agent(
        id=str(row.id),
        tenant_id=row.tenant_id,
        name=row.name,
        tool_policy=dict(row.tool_policy),
        tool_settings=dict(row.builtin_tool_settings),
        created_at=row.created_at,
        other_config=dict(row.other_config or {}),
    )


class AgentStore:
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], on_change: ChangeHook = ignore_changes
    ) -> None:
        self._sessions = sessions
        self._on_change = on_change

    async def create(self, tenant_id: str, name: str, tool_policy: dict[str, Any]) -> Agent:
        async with self._sessions() as session, session.begin():
            row = AgentRow(
                id=uuid.uuid4(),
                tenant_id=tenant_id,
                name=name,
                tool_policy=tool_policy,
                builtin_tool_settings={},
                other_config={},
            )
            session.add(row)
            try:
                await session.flush()
            except IntegrityError:
                raise AgentNameTaken(
                    f"an agent named {name!r} already exists in this tenant"
                ) from None
            await session.refresh(row)
            return _agent(row)

    async def get(self, tenant_id: str, agent_id: str) -> Agent | None:
        async with self._sessions() as session:
            row = await self._row(session, tenant_id, agent_id)
            return _agent(row) if row else None

    async def list(self, tenant_id: str) -> list[Agent]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(AgentRow).where(AgentRow.tenant_id == tenant_id).order_by(AgentRow.name)
            )
            return [_agent(r) for r in rows]

    async def set_policy(
        self, tenant_id: str, agent_id: str, tool_policy: dict[str, Any]
    ) -> Agent | None:
        async with writing(self._sessions, self._on_change) as session:
            row = await self._row(session, tenant_id, agent_id)
            if row is None:
                return None
            row.tool_policy = tool_policy
            await publish(session, ConfigChange(tenant_id, "agent"))
            await session.flush()
            return _agent(row)

    async def set_tool_settings(
        self, tenant_id: str, agent_id: str, tool: str, settings: dict[str, Any] | None
    ) -> Agent | None:
        """Set (or with None, remove) the agent tier of one tool's settings."""
        async with writing(self._sessions, self._on_change) as session:
            row = await self._row(session, tenant_id, agent_id)
            if row is None:
                return None
            merged = dict(row.builtin_tool_settings)
            if settings is None:
                merged.pop(tool, None)
            else:
                merged[tool] = settings
            row.builtin_tool_settings = merged
            await publish(session, ConfigChange(tenant_id, "settings"))
            await session.flush()
            return _agent(row)

    async def set_other_config(
        self, tenant_id: str, agent_id: str, key: str, value: Any
    ) -> Agent | None:
        async with writing(self._sessions, self._on_change) as session:
            row = await self._row(session, tenant_id, agent_id)
            if row is None:
                return None
            row.other_config = {**row.other_config, key: value}
            await publish(session, ConfigChange(tenant_id, "settings"))
            await session.flush()
            return _agent(row)

    async def delete(self, tenant_id: str, agent_id: str) -> bool:
        async with writing(self._sessions, self._on_change) as session:
            row = await self._row(session, tenant_id, agent_id)
            if row is None:
                return False
            await session.delete(row)
            await publish(session, ConfigChange(tenant_id, "agent"))
            return True

    @staticmethod
    async def _row(session: AsyncSession, tenant_id: str, agent_id: str) -> AgentRow | None:
        return await tenant_row(session, AgentRow, tenant_id, agent_id)
