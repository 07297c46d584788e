"""The tenant and global tiers of tool settings (spec §9); the agent tier is on agents."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .models import BuiltinToolRow, TenantToolConfigRow
from .notify import ALL_TENANTS, ChangeHook, ConfigChange, ignore_changes, publish, writing


class ToolSettingsStore:
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], on_change: ChangeHook = ignore_changes
    ) -> None:
        self._sessions = sessions
        self._on_change = on_change

    async def platform(self) -> dict[str, dict[str, Any]]:
        async with self._sessions() as session:
            rows = await session.scalars(select(BuiltinToolRow))
            return {r.name: dict(r.settings) for r in rows}

    async def tenant(self, tenant_id: str) -> dict[str, dict[str, Any]]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(TenantToolConfigRow).where(TenantToolConfigRow.tenant_id == tenant_id)
            )
            return {r.tool_name: dict(r.settings) for r in rows}

    async def set_platform(self, tool: str, settings: dict[str, Any] | None) -> None:
        """Master scope only (the API checks); None resets to the hardcoded default."""
        async with writing(self._sessions, self._on_change) as session:
            if settings is None:
                await session.execute(delete(BuiltinToolRow).where(BuiltinToolRow.name == tool))
            else:
                stmt = insert(BuiltinToolRow).values(name=tool, settings=settings)
                await session.execute(
                    stmt.on_conflict_do_update(index_elements=["name"], set_={"settings": settings})
                )
            await publish(session, ConfigChange(ALL_TENANTS, "settings"))

    async def set_tenant(self, tenant_id: str, tool: str, settings: dict[str, Any] | None) -> None:
        async with writing(self._sessions, self._on_change) as session:
            if settings is None:
                await session.execute(
                    delete(TenantToolConfigRow).where(
                        TenantToolConfigRow.tenant_id == tenant_id,
                        TenantToolConfigRow.tool_name == tool,
                    )
                )
            else:
                stmt = insert(TenantToolConfigRow).values(
                    tenant_id=tenant_id, tool_name=tool, settings=settings
                )
                await session.execute(
                    stmt.on_conflict_do_update(
                        index_elements=["tenant_id", "tool_name"], set_={"settings": settings}
                    )
                )
            await publish(session, ConfigChange(tenant_id, "settings"))
