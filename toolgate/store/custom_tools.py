"""Custom shell tools of a tenant (spec §7), their env encrypted with the key ring.

Each env value is AES-256-GCM with the tenant, the tool id and the variable name as
associated data. ``sensitive`` values are never returned by the API (masked,
replace-only); ``value`` ones are shown to admins. Changes publish on the config
channel: every worker rebuilds the agent's registry overlay on its next call.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..crypto import KeyRing
from ..tools import CustomToolDef
from .ids import parse_uuid, tenant_row
from .models import CustomToolRow
from .notify import ChangeHook, ConfigChange, ignore_changes, publish, writing
from .sealed_env import masked, open_env, seal_env


class CustomToolNameTaken(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class CustomToolRecord:
    """What the API shows: sensitive env values replaced by a mask."""

    id: str
    tenant_id: str
    agent_id: str | None
    name: str
    description: str
    parameters: dict[str, Any]
    command: str
    timeout_seconds: int
    enabled: bool
    env: dict[str, dict[str, str]]
    created_at: datetime
    updated_at: datetime


class CustomToolStore:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        ring: KeyRing,
        on_change: ChangeHook = ignore_changes,
    ) -> None:
        self._sessions = sessions
        self._ring = ring
        self._on_change = on_change

    def _owner(self, row_tenant: str, tool_id: uuid.UUID) -> str:
        return f"custom-tool:{row_tenant}:{tool_id}"

    def _record(self, row: CustomToolRow) -> CustomToolRecord:
        env = masked(open_env(self._ring, self._owner(row.tenant_id, row.id), row.env))
        return CustomToolRecord(
            str(row.id), row.tenant_id, str(row.agent_id) if row.agent_id else None, row.name,
            row.description, dict(row.parameters), row.command, row.timeout_seconds, row.enabled,
            env, row.created_at, row.updated_at,
        )  # fmt: skip

    def definition(self, row: CustomToolRow) -> CustomToolDef:
        return CustomToolDef(
            id=str(row.id),
            tenant_id=row.tenant_id,
            name=row.name,
            description=row.description,
            parameters=dict(row.parameters),
            command=row.command,
            agent_id=str(row.agent_id) if row.agent_id else None,
            timeout_seconds=row.timeout_seconds,
            enabled=row.enabled,
            env=open_env(self._ring, self._owner(row.tenant_id, row.id), row.env),
        )

    # --- reads ------------------------------------------------------------------------

    async def for_agent(
        self, session: AsyncSession, tenant_id: str, agent_id: uuid.UUID
    ) -> list[CustomToolDef]:
        """Enabled tools of the tenant that this agent may see, decrypted (worker only)."""
        rows = await session.scalars(
            select(CustomToolRow).where(
                CustomToolRow.tenant_id == tenant_id,
                CustomToolRow.enabled.is_(True),
                or_(CustomToolRow.agent_id.is_(None), CustomToolRow.agent_id == agent_id),
            )
        )
        return [self.definition(r) for r in rows]

    async def list(self, tenant_id: str) -> list[CustomToolRecord]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(CustomToolRow)
                .where(CustomToolRow.tenant_id == tenant_id)
                .order_by(CustomToolRow.name)
            )
            return [self._record(r) for r in rows]

    async def get(self, tenant_id: str, tool_id: str) -> CustomToolRecord | None:
        async with self._sessions() as session:
            row = await self._row(session, tenant_id, tool_id)
            return self._record(row) if row else None

    async def get_definition(self, tenant_id: str, tool_id: str) -> CustomToolDef | None:
        async with self._sessions() as session:
            row = await self._row(session, tenant_id, tool_id)
            return self.definition(row) if row else None

    # --- writes -----------------------------------------------------------------------

    async def create(self, definition: CustomToolDef) -> CustomToolRecord:
        tool_id = uuid.uuid4()
        row = CustomToolRow(
            id=tool_id,
            tenant_id=definition.tenant_id,
            agent_id=parse_uuid(definition.agent_id) if definition.agent_id else None,
            name=definition.name,
            description=definition.description,
            parameters=dict(definition.parameters),
            command=definition.command,
            timeout_seconds=definition.timeout_seconds,
            enabled=definition.enabled,
            env=seal_env(self._ring, self._owner(definition.tenant_id, tool_id), definition.env),
        )
        async with writing(self._sessions, self._on_change) as session:
            session.add(row)
            try:
                await session.flush()
            except IntegrityError:
                raise CustomToolNameTaken(
                    f"a custom tool named {definition.name!r} already exists in this tenant"
                ) from None
            await publish(session, ConfigChange(definition.tenant_id, "custom_tools"))
            await session.refresh(row)
            return self._record(row)

    async def replace(self, definition: CustomToolDef) -> CustomToolRecord | None:
        """Store ``definition`` over the row with its id (env as given, re-encrypted)."""
        async with writing(self._sessions, self._on_change) as session:
            row = await self._row(session, definition.tenant_id, definition.id)
            if row is None:
                return None
            row.name = definition.name
            row.description = definition.description
            row.parameters = dict(definition.parameters)
            row.command = definition.command
            row.agent_id = parse_uuid(definition.agent_id) if definition.agent_id else None
            row.timeout_seconds = definition.timeout_seconds
            row.enabled = definition.enabled
            row.env = seal_env(self._ring, self._owner(row.tenant_id, row.id), definition.env)
            row.updated_at = func.now()
            try:
                await session.flush()
            except IntegrityError:
                raise CustomToolNameTaken(
                    f"a custom tool named {definition.name!r} already exists in this tenant"
                ) from None
            await publish(session, ConfigChange(definition.tenant_id, "custom_tools"))
            await session.refresh(row)
            return self._record(row)

    async def delete(self, tenant_id: str, tool_id: str) -> bool:
        async with writing(self._sessions, self._on_change) as session:
            row = await self._row(session, tenant_id, tool_id)
            if row is None:
                return False
            await session.delete(row)
            await publish(session, ConfigChange(tenant_id, "custom_tools"))
            return True

    @staticmethod
    async def _row(session: AsyncSession, tenant_id: str, tool_id: str) -> CustomToolRow | None:
        return await tenant_row(session, CustomToolRow, tenant_id, tool_id)
