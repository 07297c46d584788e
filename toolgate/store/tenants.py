"""Tenants, and the tool policy of the tenant and platform layers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .models import PlatformConfigRow, TenantRow
from .notify import ALL_TENANTS, ChangeHook, ConfigChange, ignore_changes, publish, writing

MASTER_TENANT = "master"
"""The operators' tenant; its keys may hold the master role."""
_POLICY_KEY = "tool_policy"


class TenantExists(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Tenant:
    id: str
    name: str
    created_at: datetime


def _tenant(row: TenantRow) -> Tenant:
    return Tenant(row.id, row.name, row.created_at)


class TenantStore:
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], on_change: ChangeHook = ignore_changes
    ) -> None:
        self._sessions = sessions
        self._on_change = on_change

    async def create(self, tenant_id: str, name: str = "") -> Tenant:
        async with self._sessions() as session, session.begin():
            row = TenantRow(id=tenant_id, name=name, tool_policy={}, other_config={})
            session.add(row)
            try:
                await session.flush()
            except IntegrityError:
                raise TenantExists(f"tenant {tenant_id!r} already exists") from None
            await session.refresh(row)
            return _tenant(row)

    async def ensure(self, tenant_id: str, name: str = "") -> None:
        async with self._sessions() as session, session.begin():
            stmt = insert(TenantRow).values(
                id=tenant_id, name=name, tool_policy={}, other_config={}
            )
            await session.execute(stmt.on_conflict_do_nothing())

    async def get(self, tenant_id: str) -> Tenant | None:
        async with self._sessions() as session:
            row = await session.get(TenantRow, tenant_id)
            return _tenant(row) if row else None

    async def list(self) -> list[Tenant]:
        async with self._sessions() as session:
            rows = await session.scalars(select(TenantRow).order_by(TenantRow.id))
            return [_tenant(r) for r in rows]

    async def delete(self, tenant_id: str) -> bool:
        async with writing(self._sessions, self._on_change) as session:
            result = await session.execute(delete(TenantRow).where(TenantRow.id == tenant_id))
            await publish(session, ConfigChange(tenant_id, "tenant"))
            return bool(result.rowcount)  # type: ignore[attr-defined]

    async def tenant_policy(self, tenant_id: str) -> dict[str, Any]:
        async with self._sessions() as session:
            row = await session.get(TenantRow, tenant_id)
            return dict(row.tool_policy) if row else {}

    async def set_tenant_policy(self, tenant_id: str, policy: dict[str, Any]) -> None:
        async with writing(self._sessions, self._on_change) as session:
            row = await session.get(TenantRow, tenant_id)
            if row is None:
                raise LookupError(tenant_id)
            row.tool_policy = policy
            await publish(session, ConfigChange(tenant_id, "policy"))

    async def platform_policy(self) -> dict[str, Any]:
        return await self.platform_value(_POLICY_KEY)

    async def set_platform_policy(self, policy: dict[str, Any]) -> None:
        await self.set_platform_value(_POLICY_KEY, policy, "policy")

    async def platform_value(self, key: str) -> dict[str, Any]:
        async with self._sessions() as session:
            row = await session.get(PlatformConfigRow, key)
            return dict(row.value) if row else {}

    async def set_platform_value(self, key: str, value: dict[str, Any], kind: str) -> None:
        """Master scope only (the API checks); every tenant hears the change."""
        async with writing(self._sessions, self._on_change) as session:
            stmt = insert(PlatformConfigRow).values(key=key, value=value)
            stmt = stmt.on_conflict_do_update(
                index_elements=["key"],
                set_={"value": value, "updated_at": stmt.excluded.updated_at},
            )
            await session.execute(stmt)
            await publish(session, ConfigChange(ALL_TENANTS, kind))

    async def other_config(self, tenant_id: str) -> dict[str, Any]:
        async with self._sessions() as session:
            row = await session.get(TenantRow, tenant_id)
            return dict(row.other_config) if row else {}

    async def set_other_config(self, tenant_id: str, key: str, value: Any) -> None:
        async with writing(self._sessions, self._on_change) as session:
            row = await session.get(TenantRow, tenant_id)
            if row is None:
                raise LookupError(tenant_id)
            row.other_config = {**row.other_config, key: value}
            await publish(session, ConfigChange(tenant_id, "settings"))
