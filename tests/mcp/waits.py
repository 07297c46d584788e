"""Waiting for a connection on the manual clock: for a state, or for a sleeper.
They poll with ``eventually`` (states, not timings)."""

from __future__ import annotations

from toolgate.mcp import HEALTH_EVERY_SECONDS, Connection, ManualClock

from ..helpers import eventually


async def until_sleeping(clock: ManualClock, seconds: float) -> None:
    async def asleep() -> bool:
        return seconds in clock.sleeping

    await eventually(asleep, f"something sleeps {seconds} s")


async def until_state(connection: Connection | None, state: str) -> None:
    assert connection is not None

    async def reached() -> bool:
        return connection.status.state == state

    await eventually(reached, f"state {state}")


async def next_backoff(clock: ManualClock, connection: Connection) -> float | None:
    """The back-off the connection sleeps now, or None once it is marked failed."""

    async def settled() -> bool:
        if connection.status.state == "failed":
            return True
        return bool(clock.sleeping) and clock.sleeping[0] != HEALTH_EVERY_SECONDS

    await eventually(settled, "a back-off sleep, or failed")
    return None if connection.status.state == "failed" else clock.sleeping[0]
