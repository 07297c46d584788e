"""Who may use which MCP server (spec §10): agent grants, user grants, and the
access requests through which a user asks an admin for a grant.

A grant's ``tool_allow`` (None: every tool) and ``tool_deny`` name the server's own
tool names, checked against the tools it last announced, so a typo is refused rather
than silently granting nothing. Approving a request writes the user's grant in the
same transaction as the decision.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..tools import McpGrant, McpServerAccess, McpToolDef
from .ids import parse_uuid, tenant_row
from .models import (
    AgentRow,
    McpAccessRequestRow,
    McpAgentGrantRow,
    McpServerRow,
    McpUserGrantRow,
    UserRow,
)
from .notify import ChangeHook, ConfigChange, ignore_changes, publish, writing

Kind = Literal["agent", "user"]


class GrantRefused(ValueError):
    """A grant that cannot be stored; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class RequestConflict(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class GrantRecord:
    id: str
    server_id: str
    kind: Kind
    subject_id: str
    """The agent's or the user's id."""
    tool_allow: list[str] | None
    tool_deny: list[str]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class AccessRequestRecord:
    id: str
    server_id: str
    user_id: str
    tool_allow: list[str] | None
    reason: str
    status: str
    decided_by: str | None
    decision_note: str
    decided_at: datetime | None
    grant_id: str | None
    created_at: datetime


def _grant(kind: Kind, row: McpAgentGrantRow | McpUserGrantRow) -> GrantRecord:
    subject = row.agent_id if isinstance(row, McpAgentGrantRow) else row.user_id
    allow = list(row.tool_allow) if row.tool_allow is not None else None
    return GrantRecord(str(row.id), str(row.server_id), kind, str(subject), allow,
                       list(row.tool_deny), row.created_at, row.updated_at)  # fmt: skip


def _request(row: McpAccessRequestRow) -> AccessRequestRecord:
    allow = list(row.tool_allow) if row.tool_allow is not None else None
    return AccessRequestRecord(
        str(row.id), str(row.server_id), str(row.user_id), allow, row.reason, row.status,
        row.decided_by, row.decision_note, row.decided_at,
        str(row.grant_id) if row.grant_id else None, row.created_at,
    )  # fmt: skip


def checked_tools(server: McpServerRow, names: list[str] | None) -> list[str] | None:
    """The server's own tool names; ``mcp_<prefix>_x`` is accepted for ``x``."""
    if not names:
        return None if names is None else []
    if server.tools_seen_at is None:
        raise GrantRefused(
            "mcp_tools_unknown",
            f"MCP server {server.name!r} has not announced its tools yet; run "
            f"POST /v1/mcp/servers/{server.id}/test, then grant",
        )
    known = [str(t["name"]) for t in server.tools]
    prefix = f"mcp_{server.tool_prefix}_"
    out = []
    for name in names:
        bare = name.removeprefix(prefix) if name not in known else name
        if bare not in known:
            raise GrantRefused(
                "unknown_mcp_tool",
                f"MCP server {server.name!r} has no tool {name!r}; its tools: "
                f"{', '.join(sorted(known)) or '(none)'}",
            )
        out.append(bare)
    return sorted(set(out))


def server_access(
    server: McpServerRow, agent: McpGrant, users: dict[str, McpGrant]
) -> McpServerAccess:
    tools = tuple(
        McpToolDef(
            str(server.id),
            server.name,
            server.tool_prefix,
            str(t["name"]),
            str(t.get("description") or t["name"])[:2000],
            dict(t["input_schema"]),
            server.timeout_seconds,
        )  # fmt: skip
        for t in server.tools
        if agent.permits(str(t["name"]))
    )
    return McpServerAccess(str(server.id), server.name, server.tool_prefix, agent, users,
                           server.require_user_grant, tools)  # fmt: skip


async def _find(
    session: AsyncSession, kind: Kind, tenant_id: str, server_id: uuid.UUID, subject: uuid.UUID,
    *, lock: bool = False,
) -> McpAgentGrantRow | McpUserGrantRow | None:  # fmt: skip
    if kind == "agent":
        agent = select(McpAgentGrantRow).where(
            McpAgentGrantRow.tenant_id == tenant_id, McpAgentGrantRow.server_id == server_id,
            McpAgentGrantRow.agent_id == subject)  # fmt: skip
        return await session.scalar(agent.with_for_update() if lock else agent)
    user = select(McpUserGrantRow).where(
        McpUserGrantRow.tenant_id == tenant_id, McpUserGrantRow.server_id == server_id,
        McpUserGrantRow.user_id == subject)  # fmt: skip
    return await session.scalar(user.with_for_update() if lock else user)


class McpGrantStore:
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], on_change: ChangeHook = ignore_changes
    ) -> None:
        self._sessions = sessions
        self._on_change = on_change

    # --- the join of spec §10 ---------------------------------------------------------

    async def for_agent(
        self, session: AsyncSession, tenant_id: str, agent_id: uuid.UUID, server_id: str = "",
        user_id: str | None = None,
    ) -> tuple[McpServerAccess, ...]:  # fmt: skip
        """Enabled servers the agent holds a grant on, with their users' grants: every
        user's (``user_id`` None, for the cached config) or that one user's."""
        query = (
            select(McpServerRow, McpAgentGrantRow)
            .join(McpAgentGrantRow, McpAgentGrantRow.server_id == McpServerRow.id)
            .where(
                McpServerRow.tenant_id == tenant_id,
                McpServerRow.enabled.is_(True),
                McpAgentGrantRow.agent_id == agent_id,
            )  # fmt: skip
            .order_by(McpServerRow.name)
        )
        if server_id:
            query = query.where(McpServerRow.id == parse_uuid(server_id))
        pairs = [(row[0], row[1]) for row in await session.execute(query)]
        users: dict[uuid.UUID, dict[str, McpGrant]] = {s.id: {} for s, _ in pairs}
        user_query = select(McpUserGrantRow).where(McpUserGrantRow.server_id.in_(users))
        if user_id is not None:
            user_query = user_query.where(McpUserGrantRow.user_id == parse_uuid(user_id))
        if users and (user_id is None or parse_uuid(user_id) is not None):
            for row in await session.scalars(user_query):
                users[row.server_id][str(row.user_id)] = McpGrant.from_json(
                    row.tool_allow, row.tool_deny
                )
        return tuple(
            server_access(s, McpGrant.from_json(g.tool_allow, g.tool_deny), users[s.id])
            for s, g in pairs
        )

    async def access(
        self, tenant_id: str, agent_id: str, server_id: str, user_id: str
    ) -> McpServerAccess | None:
        """The agent's access to one server as stored now, with this call's user's
        grant (the check at call time)."""
        key = parse_uuid(agent_id)
        if key is None or parse_uuid(server_id) is None:
            return None
        async with self._sessions() as session:
            found = await self.for_agent(session, tenant_id, key, server_id, user_id)
        return found[0] if found else None

    # --- grants -----------------------------------------------------------------------

    async def grant(
        self, tenant_id: str, server_id: str, kind: Kind, subject_id: str,
        tool_allow: list[str] | None, tool_deny: list[str],
    ) -> GrantRecord | None:  # fmt: skip
        """Create or replace the grant; None when the server or subject is not found."""
        async with writing(self._sessions, self._on_change) as session:
            server = await tenant_row(session, McpServerRow, tenant_id, server_id)
            subject = await (
                tenant_row(session, AgentRow, tenant_id, subject_id) if kind == "agent"
                else tenant_row(session, UserRow, tenant_id, subject_id)
            )  # fmt: skip
            if server is None or subject is None:
                return None
            row = await self._upsert(session, server, kind, subject.id,
                                     checked_tools(server, tool_allow),
                                     checked_tools(server, tool_deny) or [])  # fmt: skip
            await publish(session, ConfigChange(tenant_id, "mcp_grants"))
            return _grant(kind, row)

    async def _upsert(
        self, session: AsyncSession, server: McpServerRow, kind: Kind, subject: uuid.UUID,
        allow: list[str] | None, deny: list[str],
    ) -> McpAgentGrantRow | McpUserGrantRow:  # fmt: skip
        row = await _find(session, kind, server.tenant_id, server.id, subject, lock=True)
        if row is None:
            row = (
                McpAgentGrantRow(agent_id=subject) if kind == "agent"
                else McpUserGrantRow(user_id=subject)
            )  # fmt: skip
            row.id, row.tenant_id, row.server_id = uuid.uuid4(), server.tenant_id, server.id
            session.add(row)
        row.tool_allow, row.tool_deny = allow, deny
        row.updated_at = func.now()
        await session.flush()
        await session.refresh(row)
        return row

    async def grants(self, tenant_id: str, server_id: str) -> list[GrantRecord] | None:
        async with self._sessions() as session:
            server = await tenant_row(session, McpServerRow, tenant_id, server_id)
            if server is None:
                return None
            out = [
                _grant("agent", r)
                for r in await session.scalars(
                    select(McpAgentGrantRow).where(McpAgentGrantRow.server_id == server.id)
                )
            ]
            out += [
                _grant("user", r)
                for r in await session.scalars(
                    select(McpUserGrantRow).where(McpUserGrantRow.server_id == server.id)
                )
            ]
            return out  # fmt: skip

    async def revoke(self, tenant_id: str, server_id: str, kind: Kind, subject_id: str) -> bool:
        server_key, subject = parse_uuid(server_id), parse_uuid(subject_id)
        if server_key is None or subject is None:
            return False
        async with writing(self._sessions, self._on_change) as session:
            row = await _find(session, kind, tenant_id, server_key, subject)
            if row is None:
                return False
            await session.delete(row)
            await publish(session, ConfigChange(tenant_id, "mcp_grants"))
            return True

    # --- access requests --------------------------------------------------------------

    async def request(
        self, tenant_id: str, server_id: str, user_id: str, tool_allow: list[str] | None,
        reason: str,
    ) -> AccessRequestRecord | None:  # fmt: skip
        async with self._sessions() as session, session.begin():
            server = await tenant_row(session, McpServerRow, tenant_id, server_id)
            user = await tenant_row(session, UserRow, tenant_id, user_id)
            if server is None or user is None:
                return None
            row = McpAccessRequestRow(
                id=uuid.uuid4(), tenant_id=tenant_id, server_id=server.id, user_id=user.id,
                tool_allow=checked_tools(server, tool_allow), reason=reason, status="pending",
            )  # fmt: skip
            name = server.name  # the row is expired once a failed flush rolls back
            session.add(row)
            try:
                await session.flush()
            except IntegrityError:
                raise RequestConflict(
                    "access_request_pending",
                    f"you already have a pending request for MCP server {name!r}; "
                    "wait for an admin's decision",
                ) from None
            await session.refresh(row)
            return _request(row)

    async def requests(
        self, tenant_id: str, *, user_id: str | None = None, status: str | None = None
    ) -> list[AccessRequestRecord]:
        query = select(McpAccessRequestRow).where(McpAccessRequestRow.tenant_id == tenant_id)
        if user_id is not None:
            query = query.where(McpAccessRequestRow.user_id == parse_uuid(user_id))
        if status:
            query = query.where(McpAccessRequestRow.status == status)
        async with self._sessions() as session:
            rows = await session.scalars(query.order_by(McpAccessRequestRow.created_at))
            return [_request(r) for r in rows]

    async def get_request(self, tenant_id: str, request_id: str) -> AccessRequestRecord | None:
        async with self._sessions() as session:
            row = await tenant_row(session, McpAccessRequestRow, tenant_id, request_id)
            return _request(row) if row else None

    async def decide(
        self, tenant_id: str, request_id: str, *, approve: bool, decided_by: str, note: str,
        tool_allow: list[str] | None = None,
    ) -> AccessRequestRecord | None:  # fmt: skip
        """Approve (writing the user's grant in this transaction) or reject."""
        async with writing(self._sessions, self._on_change) as session:
            row = await tenant_row(session, McpAccessRequestRow, tenant_id, request_id)
            if row is None:
                return None
            await session.refresh(row, with_for_update=True)
            if row.status != "pending":
                raise RequestConflict(
                    "access_request_decided", f"this request was already {row.status}"
                )
            row.status = "approved" if approve else "rejected"
            row.decided_by, row.decision_note, row.decided_at = decided_by, note, func.now()
            if approve:
                server = await session.get(McpServerRow, row.server_id)
                assert server is not None  # the request cascades with its server
                allow = checked_tools(server, tool_allow) if tool_allow is not None \
                    else row.tool_allow  # fmt: skip
                grant = await self._upsert(session, server, "user", row.user_id, allow, [])
                row.grant_id = grant.id
                await publish(session, ConfigChange(tenant_id, "mcp_grants"))
            await session.flush()
            await session.refresh(row)
            return _request(row)
