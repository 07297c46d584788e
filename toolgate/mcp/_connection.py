"""One MCP server as a worker holds it: a supervisor task keeps a session open, checks
its health, and reconnects (a dead stdio server is started again) under spec §10's rule:
health check every 30 s; back-off 2 s doubling to 60 s; after 10 failed attempts in a
row the server is marked failed, with its last error, until its config changes.

Calls share the open session. While there is none they fail at once with the reason,
so an agent is told the server is down instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from mcp import ClientSession

from ..tools import McpServerConfig
from ._client import describe, initialise, session
from ._clock import Clock
from ._tools import Announced, announced

log = logging.getLogger(__name__)

HEALTH_EVERY_SECONDS = 30.0
IDLE_AFTER_SECONDS = 600.0
"""A connection no call used for this long is closed; the next call opens it again."""
BACKOFF_FIRST_SECONDS = 2.0
BACKOFF_MAX_SECONDS = 60.0
MAX_ATTEMPTS = 10
PING_TIMEOUT_SECONDS = 10.0


def backoff(attempt: int) -> float:
    """The wait after the ``attempt``-th failure in a row: 2, 4, 8, ... 60, 60."""
    return float(min(BACKOFF_FIRST_SECONDS * 2.0 ** (attempt - 1), BACKOFF_MAX_SECONDS))


@dataclass(frozen=True, slots=True)
class Status:
    state: str
    """``connecting``, ``connected``, ``reconnecting``, ``failed`` or ``stopped``."""
    last_error: str = ""
    attempts: int = 0


class Reporter(Protocol):
    """Where a connection writes what it learns (the store, in production)."""

    async def tools(self, server_id: str, found: Announced) -> None: ...

    async def status(self, server_id: str, status: Status, connected: bool) -> None: ...


class Connection:
    def __init__(
        self,
        server_id: str,
        config: McpServerConfig,
        reporter: Reporter,
        clock: Clock,
        health_every: float = HEALTH_EVERY_SECONDS,
        idle_after: float = IDLE_AFTER_SECONDS,
    ) -> None:
        self.server_id = server_id
        self.config = config
        self._reporter = reporter
        self._clock = clock
        self._health_every = health_every
        self._idle_after = idle_after
        self._used = clock.monotonic()
        self._in_flight = 0
        self.status = Status("connecting")
        self.client: ClientSession | None = None
        self.connects = 0
        """How many sessions were opened (a restarted stdio server counts again)."""
        self._settled = asyncio.Event()
        self._broken = asyncio.Event()
        self._broken_by = ""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._supervise(), name=f"mcp-{self.config.name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self.client = None
        self.status = Status("stopped")

    async def settled(self, timeout: float) -> None:
        """Wait (bounded) until the first attempt to connect has an outcome."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settled.wait(), timeout)

    def used(self) -> None:
        """A call is about to use the connection: it is not idle."""
        self._used = self._clock.monotonic()

    @contextlib.contextmanager
    def calling(self) -> Iterator[None]:
        """Around a call: a connection with a call in flight is never idle."""
        self._in_flight += 1
        try:
            yield
        finally:
            self._in_flight -= 1
            self.used()

    @property
    def ended(self) -> bool:
        """Closed for idleness, or stopped: the next call needs a new connection."""
        return self.status.state in ("idle", "stopped")

    def broken(self, reason: str) -> None:
        """A call lost the connection: reconnect now rather than at the next check."""
        self._broken_by = reason
        self._broken.set()

    def outage(self) -> str:
        """Why there is no session, for the caller."""
        name, status = self.config.name, self.status
        error = f"; last error: {status.last_error}" if status.last_error else ""
        if status.state == "failed":
            return (f"MCP server {name!r} is marked failed after {status.attempts} attempts to "
                    f"connect{error}. An admin can fix its config or test it again.")  # fmt: skip
        if status.state == "reconnecting":
            return (f"MCP server {name!r} is unavailable, reconnecting (attempt "
                    f"{status.attempts} of {MAX_ATTEMPTS}){error}. Try again shortly.")  # fmt: skip
        return f"MCP server {name!r} is not connected yet ({status.state}){error}"

    async def _report(self, status: Status, connected: bool = False) -> None:
        self.status = status
        try:
            await self._reporter.status(self.server_id, status, connected)
        except Exception as exc:  # the store is down: the connection itself is fine
            log.warning("cannot record the status of MCP server %s: %s", self.config.name, exc)

    async def _supervise(self) -> None:
        attempt = 0
        while True:
            try:
                async with session(self.config) as client:
                    tools = await asyncio.wait_for(initialise(client), self.config.timeout_seconds)
                    found = announced(self.config.name, self.config.prefix, tools)
                    await self._reporter.tools(self.server_id, found)
                    attempt = 0
                    self.connects += 1
                    self.client = client
                    await self._report(Status("connected"), connected=True)
                    self._settled.set()
                    await self._watch(client)
                    self.client = None  # idle: no new call takes it while it closes
                    self.status = Status("idle")
                await self._report(Status("idle"))
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                error = describe(exc)
            self.client = None
            attempt += 1
            log.warning("MCP server %s: attempt %d failed: %s", self.config.name, attempt, error)
            if attempt >= MAX_ATTEMPTS:
                await self._report(Status("failed", error, attempt))
                self._settled.set()
                return
            await self._report(Status("reconnecting", error, attempt))
            self._settled.set()
            await self._clock.sleep(backoff(attempt))

    async def _watch(self, client: ClientSession) -> None:
        """Return when the session has been idle too long; raise when the health check
        (or a call) finds it dead."""
        self._broken.clear()
        while True:
            tick = asyncio.ensure_future(self._clock.sleep(self._health_every))
            broken = asyncio.ensure_future(self._broken.wait())
            try:
                await asyncio.wait({tick, broken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in (tick, broken):
                    waiter.cancel()
            if self._broken.is_set():
                raise ConnectionError(f"the connection was lost during a call ({self._broken_by})")
            if not self._in_flight and self._clock.monotonic() - self._used >= self._idle_after:
                return
            timeout = min(PING_TIMEOUT_SECONDS, self.config.timeout_seconds)
            await asyncio.wait_for(client.send_ping(), timeout)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Connection({self.config.name!r}, {self.status})"
