"""Approvals of commands that wait for a human (spec §9: package_install).

The gate records a pending request and refuses; an admin decides through the API;
the ToolCall workflow, woken by a signal, runs the call again and the gate lets it
through only if this exact command (by SHA-256) was approved for this exact call.
A signal alone approves nothing: the decision lives here, written by an
authenticated admin of the tenant.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..tools import Scrubber, ToolContext
from .models import ApprovalRow


@dataclass(frozen=True, slots=True)
class Approval:
    id: str
    tenant_id: str
    agent_id: str
    tool_call_id: str
    workflow_id: str
    tool: str
    command: str
    reason: str
    status: str
    decided_by: str | None
    created_at: datetime
    decided_at: datetime | None


def _sha(command: str) -> str:
    return hashlib.sha256(command.encode()).hexdigest()


def _approval(row: ApprovalRow) -> Approval:
    return Approval(
        row.id, row.tenant_id, row.agent_id, row.tool_call_id, row.workflow_id, row.tool,
        row.command, row.reason, row.status, row.decided_by, row.created_at, row.decided_at,
    )  # fmt: skip


class PostgresApprovals:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], scrubber: Scrubber) -> None:
        self._sessions = sessions
        self._scrubber = scrubber

    async def approved(self, ctx: ToolContext, command: str) -> bool:
        async with self._sessions() as session:
            found = await session.scalar(
                select(ApprovalRow.id).where(
                    ApprovalRow.tool_call_id == ctx.tool_call_id,
                    ApprovalRow.command_sha256 == _sha(command),
                    ApprovalRow.status == "approved",
                )
            )
            return found is not None

    async def request(self, ctx: ToolContext, command: str, tool: str, reason: str) -> str:
        """Idempotent per (call, command): a retried activity finds the same request."""
        stmt = insert(ApprovalRow).values(
            id=f"ap_{secrets.token_hex(8)}",
            tenant_id=ctx.tenant_id,
            agent_id=ctx.agent_id,
            tool_call_id=ctx.tool_call_id,
            workflow_id=ctx.workflow_id,
            tool=tool,
            command=self._scrubber.scrub(command, ctx.scrub_values),
            command_sha256=_sha(command),
            reason=reason,
        )
        async with self._sessions() as session, session.begin():
            await session.execute(stmt.on_conflict_do_nothing())
            approval_id = await session.scalar(
                select(ApprovalRow.id).where(
                    ApprovalRow.tool_call_id == ctx.tool_call_id,
                    ApprovalRow.command_sha256 == _sha(command),
                )
            )
        assert approval_id is not None
        return approval_id

    async def get(self, tenant_id: str, approval_id: str) -> Approval | None:
        async with self._sessions() as session:
            row = await session.get(ApprovalRow, approval_id)
        return _approval(row) if row is not None and row.tenant_id == tenant_id else None

    async def list(self, tenant_id: str, status: str | None = "pending") -> list[Approval]:
        query = select(ApprovalRow).where(ApprovalRow.tenant_id == tenant_id)
        if status is not None:
            query = query.where(ApprovalRow.status == status)
        async with self._sessions() as session:
            rows = await session.scalars(query.order_by(ApprovalRow.created_at.desc()).limit(200))
            return [_approval(r) for r in rows]

    async def decide(
        self, tenant_id: str, approval_id: str, approved: bool, decided_by: str
    ) -> Approval | None:
        """Pending → approved/denied, once. None if it is not pending in this tenant."""
        async with self._sessions() as session, session.begin():
            row = await session.scalar(
                update(ApprovalRow)
                .where(
                    ApprovalRow.id == approval_id,
                    ApprovalRow.tenant_id == tenant_id,
                    ApprovalRow.status == "pending",
                )
                .values(
                    status="approved" if approved else "denied",
                    decided_by=decided_by,
                    decided_at=func.now(),
                )
                .returning(ApprovalRow)
            )
            return _approval(row) if row is not None else None

    async def expire(self, approval_id: str) -> None:
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ApprovalRow).where(ApprovalRow.id == approval_id).values(status="expired")
            )
