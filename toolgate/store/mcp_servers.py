"""MCP servers of a tenant (spec §10): how to reach them, and what they last said.

``env`` (stdio) and ``headers`` (HTTP transports) are sealed like custom-tool env:
AES-256-GCM with the tenant, the server id and the name as associated data. The API
shows their names only. The tool list, status and last error are written by whoever
connects (a worker's manager, or the API's "test connection") so the API can list an
agent's MCP tools without holding a connection itself.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..crypto import KeyRing
from ..tools import EnvVar, McpServerConfig
from .ids import tenant_row
from .models import McpServerRow
from .notify import ChangeHook, ConfigChange, ignore_changes, publish, writing
from .sealed_env import open_env, seal_env

MASK = "****"


class McpServerTaken(ValueError):
    """The name or the tool prefix is used by another server of the tenant."""


@dataclass(frozen=True, slots=True)
class McpServerRecord:
    """What the API shows: credential names, never their values."""

    id: str
    tenant_id: str
    name: str
    transport: str
    command: str
    args: list[str]
    env: dict[str, str]
    url: str
    headers: dict[str, str]
    tool_prefix: str
    enabled: bool
    timeout_seconds: float
    require_user_grant: bool
    tools: list[dict[str, Any]]
    tool_warnings: list[str]
    tools_seen_at: datetime | None
    status: str
    last_error: str
    attempts: int
    connected_at: datetime | None
    checked_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @property
    def tool_names(self) -> list[str]:
        return [str(t["name"]) for t in self.tools]


@dataclass(frozen=True, slots=True)
class McpServer:
    """A server with its credentials open: for the process that connects to it."""

    id: str
    tenant_id: str
    config: McpServerConfig
    updated_at: datetime


def _owner(tenant_id: str, server_id: uuid.UUID, part: str) -> str:
    return f"mcp-server:{tenant_id}:{server_id}:{part}"


class McpServerStore:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        ring: KeyRing,
        on_change: ChangeHook = ignore_changes,
    ) -> None:
        self._sessions = sessions
        self._ring = ring
        self._on_change = on_change

    # --- shapes -----------------------------------------------------------------------

    def _open(self, row: McpServerRow, part: str) -> dict[str, str]:
        stored = row.env if part == "env" else row.headers
        opened = open_env(self._ring, _owner(row.tenant_id, row.id, part), stored)
        return {k: v.value for k, v in opened.items()}

    def _seal(self, row: McpServerRow, part: str, values: dict[str, str]) -> dict[str, Any]:
        env = {k: EnvVar(v, "sensitive") for k, v in values.items()}
        return seal_env(self._ring, _owner(row.tenant_id, row.id, part), env)

    @staticmethod
    def record(row: McpServerRow) -> McpServerRecord:
        return McpServerRecord(
            str(row.id), row.tenant_id, row.name, row.transport, row.command, list(row.args),
            dict.fromkeys(row.env, MASK), row.url, dict.fromkeys(row.headers, MASK),
            row.tool_prefix, row.enabled, row.timeout_seconds, row.require_user_grant,
            list(row.tools), list(row.tool_warnings), row.tools_seen_at, row.status,
            row.last_error, row.attempts, row.connected_at, row.checked_at, row.created_at,
            row.updated_at,
        )  # fmt: skip

    def server(self, row: McpServerRow) -> McpServer:
        config = McpServerConfig(
            name=row.name, transport=row.transport, command=row.command,
            args=list(row.args), env=self._open(row, "env"), url=row.url,
            headers=self._open(row, "headers"), tool_prefix=row.tool_prefix, enabled=row.enabled,
            timeout_seconds=row.timeout_seconds, require_user_grant=row.require_user_grant,
        )  # fmt: skip
        return McpServer(str(row.id), row.tenant_id, config, row.updated_at)

    # --- reads ------------------------------------------------------------------------

    async def all(self, tenant_id: str) -> list[McpServerRecord]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(McpServerRow).where(McpServerRow.tenant_id == tenant_id)
                .order_by(McpServerRow.name)
            )  # fmt: skip
            return [self.record(r) for r in rows]

    async def get(self, tenant_id: str, server_id: str) -> McpServerRecord | None:
        async with self._sessions() as session:
            row = await tenant_row(session, McpServerRow, tenant_id, server_id)
            return self.record(row) if row else None

    async def open(self, tenant_id: str, server_id: str) -> McpServer | None:
        """The server with its credentials, to connect to it."""
        async with self._sessions() as session:
            row = await tenant_row(session, McpServerRow, tenant_id, server_id)
            return self.server(row) if row else None

    async def versions(self, server_ids: list[str]) -> dict[str, datetime]:
        """``updated_at`` of those servers that still exist and are enabled."""
        keys = [uuid.UUID(i) for i in server_ids]
        async with self._sessions() as session:
            rows = await session.execute(
                select(McpServerRow.id, McpServerRow.updated_at).where(
                    McpServerRow.id.in_(keys), McpServerRow.enabled.is_(True))
            )  # fmt: skip
            return {str(row[0]): row[1] for row in rows}

    # --- writes by admins -------------------------------------------------------------

    async def create(self, tenant_id: str, config: McpServerConfig) -> McpServerRecord:
        row = McpServerRow(id=uuid.uuid4(), tenant_id=tenant_id, tools=[], tool_warnings=[])
        self._apply(row, config)
        async with writing(self._sessions, self._on_change) as session:
            session.add(row)
            await self._flush(session, config)
            await publish(session, ConfigChange(tenant_id, "mcp"))
            await session.refresh(row)
            return self.record(row)

    async def replace(
        self, tenant_id: str, server_id: str, config: McpServerConfig
    ) -> McpServerRecord | None:
        """Store ``config`` over the server. Env and header values given as ``****``
        keep their stored value, so a client can send back what it read."""
        async with writing(self._sessions, self._on_change) as session:
            row = await tenant_row(session, McpServerRow, tenant_id, server_id)
            if row is None:
                return None
            old_env, old_headers = self._open(row, "env"), self._open(row, "headers")
            config = config.model_copy(update={
                "env": {k: old_env.get(k, "") if v == MASK else v for k, v in config.env.items()},
                "headers": {k: old_headers.get(k, "") if v == MASK else v
                            for k, v in config.headers.items()},
            })  # fmt: skip
            self._apply(row, config)
            row.status, row.attempts, row.last_error = "pending", 0, ""
            row.updated_at = func.now()
            await self._flush(session, config)
            await publish(session, ConfigChange(tenant_id, "mcp"))
            await session.refresh(row)
            return self.record(row)

    async def delete(self, tenant_id: str, server_id: str) -> bool:
        async with writing(self._sessions, self._on_change) as session:
            row = await tenant_row(session, McpServerRow, tenant_id, server_id)
            if row is None:
                return False
            await session.delete(row)
            await publish(session, ConfigChange(tenant_id, "mcp"))
            return True

    def _apply(self, row: McpServerRow, config: McpServerConfig) -> None:
        row.name, row.transport, row.command = config.name, config.transport, config.command
        row.args, row.url, row.tool_prefix = list(config.args), config.url, config.prefix
        row.env = self._seal(row, "env", config.env)
        row.headers = self._seal(row, "headers", config.headers)
        row.enabled, row.timeout_seconds = config.enabled, config.timeout_seconds
        row.require_user_grant = config.require_user_grant

    @staticmethod
    async def _flush(session: AsyncSession, config: McpServerConfig) -> None:
        try:
            await session.flush()
        except IntegrityError as exc:
            if "tool_prefix" in str(exc.orig):
                raise McpServerTaken(
                    f"another MCP server of this tenant already uses the tool prefix "
                    f"{config.prefix!r}; set a different tool_prefix"
                ) from None
            raise McpServerTaken(
                f"an MCP server named {config.name!r} already exists in this tenant"
            ) from None

    # --- writes by whoever connects ---------------------------------------------------

    async def record_tools(
        self, server_id: str, tools: list[dict[str, Any]], warnings: list[str]
    ) -> None:
        """The tool list a connection announced; agents' configs reload when it changed."""
        async with writing(self._sessions, self._on_change) as session:
            row = await session.get(McpServerRow, uuid.UUID(server_id))
            if row is None:
                return
            changed = row.tools != tools or row.tool_warnings != warnings
            row.tools, row.tool_warnings, row.tools_seen_at = tools, warnings, func.now()
            if changed:
                await publish(session, ConfigChange(row.tenant_id, "mcp_tools"))

    async def record_status(
        self, server_id: str, status: str, *, last_error: str = "", attempts: int = 0,
        connected: bool = False,
    ) -> None:  # fmt: skip
        async with self._sessions() as session, session.begin():
            row = await session.get(McpServerRow, uuid.UUID(server_id))
            if row is None:
                return
            row.status, row.attempts, row.checked_at = status, attempts, func.now()
            if last_error:  # kept once connected again: what the last outage was
                row.last_error = last_error
            if connected:
                row.connected_at = func.now()

    async def wake(self, tenant_id: str) -> None:
        """Ask workers to re-read the tenant's servers (and retry failed ones)."""
        async with writing(self._sessions, self._on_change) as session:
            await publish(session, ConfigChange(tenant_id, "mcp"))
