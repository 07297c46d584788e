"""Credentialed binaries of a tenant and the agents granted each (spec §4, §5)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..crypto import KeyRing
from ..tools import EnvVar
from ..tools.cli import CliBinary
from .ids import parse_uuid, tenant_row
from .models import CliBinaryRow, CliGrantRow
from .notify import ChangeHook, ConfigChange, ignore_changes, publish, writing
from .sealed_env import masked, open_env, seal_env


class BinaryNameTaken(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class CliBinaryRecord:
    id: str
    binary_name: str
    env: dict[str, dict[str, str]]
    deny_args: list[str]
    timeout_seconds: int
    tips: str
    adapter: str
    enabled: bool
    granted_agents: list[str]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class CliBinaryInput:
    binary_name: str
    env: dict[str, EnvVar]
    deny_args: list[str]
    timeout_seconds: int
    tips: str
    adapter: str
    enabled: bool


class CliBinaryStore:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        ring: KeyRing,
        on_change: ChangeHook = ignore_changes,
    ) -> None:
        self._sessions = sessions
        self._ring = ring
        self._on_change = on_change

    @staticmethod
    def _owner(row: CliBinaryRow) -> str:
        return f"cli:{row.tenant_id}:{row.id}"

    def env(self, row: CliBinaryRow) -> dict[str, EnvVar]:
        return open_env(self._ring, self._owner(row), row.encrypted_env)

    async def _grants(
        self, session: AsyncSession, binary_ids: list[uuid.UUID]
    ) -> dict[Any, set[str]]:
        grants: dict[Any, set[str]] = {b: set() for b in binary_ids}
        if binary_ids:
            rows = await session.scalars(
                select(CliGrantRow).where(CliGrantRow.binary_id.in_(binary_ids))
            )
            for grant in rows:
                grants[grant.binary_id].add(str(grant.agent_id))
        return grants

    def _record(self, row: CliBinaryRow, grants: set[str]) -> CliBinaryRecord:
        return CliBinaryRecord(
            str(row.id), row.binary_name, masked(self.env(row)), list(row.deny_args),
            row.timeout_seconds, row.tips, row.adapter_name, row.enabled, sorted(grants),
            row.created_at,
        )  # fmt: skip

    async def for_tenant(self, session: AsyncSession, tenant_id: str) -> dict[str, CliBinary]:
        """Enabled binaries with decrypted env and grants (worker only); raises if the
        key ring cannot open them, so the gate fails closed."""
        rows = list(
            await session.scalars(
                select(CliBinaryRow).where(
                    CliBinaryRow.tenant_id == tenant_id, CliBinaryRow.enabled.is_(True)
                )
            )
        )
        grants = await self._grants(session, [r.id for r in rows])
        return {
            r.binary_name: CliBinary(
                id=str(r.id),
                tenant_id=r.tenant_id,
                binary_name=r.binary_name,
                env={k: v.value for k, v in self.env(r).items()},
                deny_args=tuple(r.deny_args),
                timeout_seconds=r.timeout_seconds,
                tips=r.tips,
                adapter=r.adapter_name,
                enabled=r.enabled,
                granted_agents=frozenset(grants[r.id]),
            )
            for r in rows
        }

    async def list(self, tenant_id: str) -> list[CliBinaryRecord]:
        async with self._sessions() as session:
            rows = list(
                await session.scalars(
                    select(CliBinaryRow)
                    .where(CliBinaryRow.tenant_id == tenant_id)
                    .order_by(CliBinaryRow.binary_name)
                )
            )
            grants = await self._grants(session, [r.id for r in rows])
            return [self._record(r, grants[r.id]) for r in rows]

    async def get(self, tenant_id: str, binary_id: str) -> CliBinaryRecord | None:
        async with self._sessions() as session:
            row = await self._row(session, tenant_id, binary_id)
            if row is None:
                return None
            return self._record(row, (await self._grants(session, [row.id]))[row.id])

    async def current(self, tenant_id: str, binary_id: str) -> CliBinaryInput | None:
        async with self._sessions() as session:
            row = await self._row(session, tenant_id, binary_id)
            if row is None:
                return None
            return CliBinaryInput(
                row.binary_name, self.env(row), list(row.deny_args), row.timeout_seconds,
                row.tips, row.adapter_name, row.enabled,
            )  # fmt: skip

    async def save(
        self, tenant_id: str, data: CliBinaryInput, binary_id: str | None = None
    ) -> CliBinaryRecord | None:
        """Create (no id) or replace (an id of this tenant; None if there is none)."""
        async with writing(self._sessions, self._on_change) as session:
            if binary_id is None:
                row = CliBinaryRow(id=uuid.uuid4(), tenant_id=tenant_id)
                session.add(row)
            else:
                found = await self._row(session, tenant_id, binary_id)
                if found is None:
                    return None
                row = found
            row.binary_name, row.deny_args = data.binary_name, list(data.deny_args)
            row.timeout_seconds, row.tips = data.timeout_seconds, data.tips
            row.adapter_name, row.enabled = data.adapter, data.enabled
            row.encrypted_env = seal_env(self._ring, self._owner(row), data.env)
            try:
                await session.flush()
            except IntegrityError:
                raise BinaryNameTaken(
                    f"{data.binary_name!r} is already registered in this tenant"
                ) from None
            await publish(session, ConfigChange(tenant_id, "cli_binaries"))
            await session.refresh(row)
            return self._record(row, (await self._grants(session, [row.id]))[row.id])

    async def delete(self, tenant_id: str, binary_id: str) -> bool:
        async with writing(self._sessions, self._on_change) as session:
            row = await self._row(session, tenant_id, binary_id)
            if row is None:
                return False
            await session.delete(row)
            await publish(session, ConfigChange(tenant_id, "cli_binaries"))
            return True

    async def grant(self, tenant_id: str, binary_id: str, agent_id: str, granted: bool) -> bool:
        """Grant (or revoke) one agent; False if the binary is not in this tenant."""
        agent_key = parse_uuid(agent_id)
        async with writing(self._sessions, self._on_change) as session:
            row = await self._row(session, tenant_id, binary_id)
            if row is None or agent_key is None:
                return False
            if granted:
                stmt = insert(CliGrantRow).values(binary_id=row.id, agent_id=agent_key)
                await session.execute(stmt.on_conflict_do_nothing())
            else:
                await session.execute(
                    delete(CliGrantRow).where(
                        CliGrantRow.binary_id == row.id, CliGrantRow.agent_id == agent_key
                    )
                )
            await publish(session, ConfigChange(tenant_id, "cli_binaries"))
            return True

    @staticmethod
    async def _row(session: AsyncSession, tenant_id: str, binary_id: str) -> CliBinaryRow | None:
        return await tenant_row(session, CliBinaryRow, tenant_id, binary_id)
