"""The MCP manager of a worker (spec §10): a pool of supervised connections, and the
bridge the gate calls for ``mcp_<prefix>_<tool>``.

A connection is opened by the first call that needs it and closed after 10 minutes
without one (temporalio-mcp's pool, with idle eviction), so a worker does not start
every tenant's servers. While open it is health-checked and reconnected; a change of
the server's config (on any API process) closes it, and the next call opens the new one.

Connections and credentials stay in the worker, as in temporalio-mcp's contract: the
workflow's activity input names the tool and its arguments, never the server's env or
headers. Every call has already passed the gate (policy, schema, rate limit); here it
is checked once more against the grants as stored now, then sent over the pool.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from ..store.mcp_grants import McpGrantStore
from ..store.mcp_servers import McpServer, McpServerStore
from ..store.notify import ALL_TENANTS, ConfigChange
from ..tools import McpServerAccess, McpToolDef, McpUnavailable, Scrubber, ToolContext, ToolResult
from ._client import FINAL_CODES, REQUEST_TIMEOUT, describe
from ._clock import Clock, RealClock
from ._connection import HEALTH_EVERY_SECONDS, Connection, Status
from ._tools import Announced, result_text

log = logging.getLogger(__name__)
CONNECT_WAIT_SECONDS = 10.0
"""How long a call waits for a connection this worker opens for it; then it fails fast."""
MIN_SECRET_LENGTH = 6


class StoreReporter:
    """Connections write their tool lists and status to the server's row."""

    def __init__(self, servers: McpServerStore) -> None:
        self._servers = servers

    async def tools(self, server_id: str, found: Announced) -> None:
        await self._servers.record_tools(server_id, found.tools, found.warnings)

    async def status(self, server_id: str, status: Status, connected: bool) -> None:
        await self._servers.record_status(
            server_id, status.state, last_error=status.last_error, attempts=status.attempts,
            connected=connected,
        )  # fmt: skip


class McpManager:
    def __init__(
        self,
        servers: McpServerStore,
        grants: McpGrantStore,
        scrubber: Scrubber,
        *,
        clock: Clock | None = None,
        health_every: float = HEALTH_EVERY_SECONDS,
        connect_wait: float = CONNECT_WAIT_SECONDS,
    ) -> None:
        self._servers = servers
        self._grants = grants
        self._scrubber = scrubber
        self._reporter = StoreReporter(servers)
        self._clock = clock or RealClock()
        self._health_every = health_every
        self._connect_wait = connect_wait
        self._connections: dict[str, tuple[McpServer, Connection]] = {}
        self._lock = asyncio.Lock()
        self._syncs: set[asyncio.Task[None]] = set()
        self._started = False

    # --- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Follow config changes of the servers this worker holds connections to."""
        self._started = True

    async def stop(self) -> None:
        self._started = False
        for task in list(self._syncs):
            task.cancel()
        async with self._lock:
            held = [connection for _, connection in self._connections.values()]
            self._connections.clear()
        await asyncio.gather(*(c.stop() for c in held))

    def on_change(self, change: ConfigChange) -> None:
        """A server was added, changed or removed somewhere: follow it."""
        if not self._started:
            return  # an API process: it lists tools, it holds no connections
        if change.kind not in ("mcp", "tenant") and change.tenant_id != ALL_TENANTS:
            return  # "tenant": a deleted tenant's servers close
        if not self._connections:
            return
        task = asyncio.get_running_loop().create_task(self._sync_quietly())
        self._syncs.add(task)
        task.add_done_callback(self._syncs.discard)

    async def _sync_quietly(self) -> None:
        try:
            await self.sync()
        except Exception as exc:
            log.warning("MCP servers could not be re-read (%s); will retry on the next change", exc)

    async def sync(self) -> None:
        """Close connections whose server changed, was disabled or removed, or failed;
        the next call opens the server as it is now (a failed one is tried again)."""
        async with self._lock:  # one sync at a time, each on what it read
            versions = await self._servers.versions(list(self._connections))
            closing = []
            for server_id, (server, connection) in list(self._connections.items()):
                stale = versions.get(server_id) != server.updated_at
                if stale or connection.status.state == "failed" or connection.ended:
                    closing.append(connection)
                    del self._connections[server_id]
        await asyncio.gather(*(c.stop() for c in closing))

    def _open(self, server: McpServer) -> Connection:
        connection = Connection(server.id, server.config, self._reporter, self._clock,
                                self._health_every)  # fmt: skip
        self._connections[server.id] = (server, connection)
        connection.start()
        return connection

    def connection(self, server_id: str) -> Connection | None:
        found = self._connections.get(server_id)
        return found[1] if found else None

    async def _ready(self, tenant_id: str, server_id: str, name: str) -> Connection:
        connection = self.connection(server_id)
        if connection is None or connection.ended:  # open it for this call
            server = await self._servers.open(tenant_id, server_id)
            if server is None or not server.config.enabled:
                raise McpUnavailable(f"MCP server {name!r} was removed or disabled")
            async with self._lock:
                connection = self.connection(server_id)
                if connection is None or connection.ended:
                    connection = self._open(server)
        connection.used()
        if connection.client is None and connection.status.state == "connecting":
            await connection.settled(self._connect_wait)
        return connection

    # --- the bridge --------------------------------------------------------------------

    async def access(self, ctx: ToolContext, server_id: str) -> McpServerAccess | None:
        return await self._grants.access(ctx.tenant_id, ctx.agent_id, server_id, ctx.user_id)

    async def call(self, ctx: ToolContext, tool: McpToolDef, args: Mapping[str, Any]) -> ToolResult:
        connection = await self._ready(ctx.tenant_id, tool.server_id, tool.server)
        client = connection.client
        if client is None:
            raise McpUnavailable(connection.outage())
        try:
            with connection.calling():
                result = await client.call_tool(
                    tool.remote, dict(args), read_timeout_seconds=tool.timeout_seconds
                )
        except MCPError as exc:
            if exc.code in FINAL_CODES:
                return ToolResult.error(
                    "mcp_protocol_error", f"MCP server {tool.server!r} refused the call: {exc}"
                )
            if exc.code == REQUEST_TIMEOUT:
                return ToolResult.error("tool_timeout", f"MCP server {tool.server!r} did not "
                                        f"answer within {tool.timeout_seconds:g} s")  # fmt: skip
            connection.broken(describe(exc))
            raise McpUnavailable(self._lost(tool, exc)) from exc
        except Exception as exc:  # the transport died under the call
            connection.broken(describe(exc))
            raise McpUnavailable(self._lost(tool, exc)) from exc
        if not isinstance(result, CallToolResult):
            return ToolResult.error("mcp_protocol_error", f"MCP server {tool.server!r} asked "
                                    "for input, which toolgate does not support")  # fmt: skip
        text = self._scrubber.scrub(result_text(result), _secrets(connection))
        if result.is_error:
            return ToolResult.error("mcp_tool_error", text or f"{tool.name} reported an error")
        return ToolResult.ok(text)

    @staticmethod
    def _lost(tool: McpToolDef, exc: BaseException) -> str:
        return (f"MCP server {tool.server!r} lost its connection during the call ({exc}); "
                "it is reconnecting, try again shortly")  # fmt: skip


def _secrets(connection: Connection) -> tuple[str, ...]:
    """The server's own credentials: a server that echoes them gets them scrubbed."""
    config = connection.config
    values = (*config.env.values(), *config.headers.values())
    found = [v for v in values if len(v) >= MIN_SECRET_LENGTH]
    # a header like "Bearer abc..." is scrubbed whole and by its token
    found += [v.split(" ", 1)[1] for v in found if " " in v and len(v.split(" ", 1)[1]) >= 6]
    return tuple(found)
