"""The audit log of governed calls, and the idempotency look-up it doubles as."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..tools import AuditEntry, ToolResult
from .models import ToolAuditRow


@dataclass(frozen=True, slots=True)
class AuditRecord:
    tool_call_id: str
    tool: str
    tenant_id: str
    agent_id: str
    user_id: str
    session_key: str
    arguments: Any
    outcome: str
    error_code: str | None
    duration_ms: float
    result: ToolResult
    created_at: datetime


class PostgresAuditLog:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def record(self, entry: AuditEntry) -> None:
        async with self._sessions() as session, session.begin():
            session.add(
                ToolAuditRow(
                    tool_call_id=entry.tool_call_id,
                    tenant_id=entry.tenant_id,
                    agent_id=entry.agent_id,
                    user_id=entry.user_id,
                    session_key=entry.session_key,
                    tool=entry.tool,
                    arguments=entry.arguments,
                    outcome=entry.outcome,
                    error_code=entry.error_code,
                    duration_ms=entry.duration_ms,
                    result=entry.result.model_dump(),
                )
            )

    async def completed(self, tool_call_id: str) -> ToolResult | None:
        async with self._sessions() as session:
            row = await session.scalar(
                select(ToolAuditRow)
                .where(ToolAuditRow.tool_call_id == tool_call_id, ToolAuditRow.outcome == "ok")
                .limit(1)
            )
            return ToolResult.model_validate(row.result) if row else None

    async def list(
        self, tenant_id: str, agent_id: str | None = None, limit: int = 50
    ) -> list[AuditRecord]:
        query = select(ToolAuditRow).where(ToolAuditRow.tenant_id == tenant_id)
        if agent_id is not None:
            query = query.where(ToolAuditRow.agent_id == agent_id)
        query = query.order_by(ToolAuditRow.id.desc()).limit(limit)
        async with self._sessions() as session:
            rows = await session.scalars(query)
            return [
                AuditRecord(
                    tool_call_id=r.tool_call_id,
                    tool=r.tool,
                    tenant_id=r.tenant_id,
                    agent_id=r.agent_id,
                    user_id=r.user_id,
                    session_key=r.session_key,
                    arguments=r.arguments,
                    outcome=r.outcome,
                    error_code=r.error_code,
                    duration_ms=r.duration_ms,
                    result=ToolResult.model_validate(r.result),
                    created_at=r.created_at,
                )
                for r in rows
            ]
