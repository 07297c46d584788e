"""Health checks and reconnection against real servers, on a manual clock: a killed
stdio server is started again; an HTTP server that stays down is retried with back-off
2 s doubling to 60 s, and marked failed after 10 attempts, with its last error."""

from __future__ import annotations

import os
import re
import signal

from toolgate.mcp import MAX_ATTEMPTS, Announced, Connection, ManualClock, Status

from .conftest import HttpNotes, notes_stdio
from .waits import next_backoff, until_sleeping, until_state


class Reporter:
    """What a connection reports, kept in memory (the store's version is tested with
    the manager)."""

    def __init__(self) -> None:
        self.statuses: list[Status] = []
        self.announced: list[Announced] = []

    async def tools(self, server_id: str, found: Announced) -> None:
        self.announced.append(found)

    async def status(self, server_id: str, status: Status, connected: bool) -> None:
        self.statuses.append(status)


async def _server_pid(connection: Connection) -> int:
    assert connection.client is not None
    result = await connection.client.call_tool("show_config", {})
    found = re.search(r"pid=(\d+)", result.content[0].text)  # type: ignore[union-attr]
    assert found
    return int(found.group(1))


async def test_a_stdio_server_that_dies_is_found_by_the_health_check_and_restarted() -> None:
    clock, reporter = ManualClock(), Reporter()
    connection = Connection("s1", notes_stdio(), reporter, clock)
    connection.start()
    try:
        await until_state(connection, "connected")
        first = await _server_pid(connection)
        os.kill(first, signal.SIGKILL)
        await until_sleeping(clock, 30.0)
        await clock.advance(30)  # the health check pings a dead server
        await until_state(connection, "reconnecting")
        assert connection.client is None
        assert "is unavailable, reconnecting (attempt 1 of 10)" in connection.outage()
        await until_sleeping(clock, 2.0)
        await clock.advance(2)
        await until_state(connection, "connected")
        assert await _server_pid(connection) != first
        assert connection.connects == 2
        assert [s.state for s in reporter.statuses] == ["connected", "reconnecting", "connected"]
        assert [len(t.tools) for t in reporter.announced] == [4, 4]
    finally:
        await connection.stop()


async def test_a_server_that_stays_down_is_retried_with_backoff_then_marked_failed(
    http_notes: HttpNotes,
) -> None:
    clock, reporter = ManualClock(), Reporter()
    connection = Connection("s2", http_notes.config(timeout_seconds=5), reporter, clock)
    connection.start()
    try:
        await until_state(connection, "connected")
        http_notes.kill()
        await until_sleeping(clock, 30.0)
        await clock.advance(30)
        waits = []
        while (wait := await next_backoff(clock, connection)) is not None:
            waits.append(wait)
            await clock.advance(wait)
        await until_state(connection, "failed")
        assert waits == [2, 4, 8, 16, 32, 60, 60, 60, 60]
        failed = connection.status
        assert failed.attempts == MAX_ATTEMPTS
        assert re.search(r"(onnect|refused)", failed.last_error), failed.last_error
        assert "is marked failed after 10 attempts" in connection.outage()
        assert [s.attempts for s in reporter.statuses[1:]] == list(range(1, 11))
        http_notes.start()  # it comes back, but a failed server waits for an admin
        assert clock.sleeping == []
        assert connection.client is None
    finally:
        await connection.stop()


async def test_an_sse_server_that_restarts_is_reconnected(sse_notes: HttpNotes) -> None:
    clock, reporter = ManualClock(), Reporter()
    connection = Connection("s3", sse_notes.config(timeout_seconds=5), reporter, clock)
    connection.start()
    try:
        await until_state(connection, "connected")
        sse_notes.kill()
        sse_notes.start()
        await until_sleeping(clock, 30.0)
        await clock.advance(30)  # the ping fails on the old stream, or passes on a new one
        await until_state(connection, "reconnecting")
        await until_sleeping(clock, 2.0)
        await clock.advance(2)
        await until_state(connection, "connected")
        assert connection.connects == 2
    finally:
        await connection.stop()
