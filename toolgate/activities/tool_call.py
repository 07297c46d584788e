"""The one dynamic tool activity: every tool runs under its own activity name.

The worker's governance interceptor runs the gate (DESIGN §2) around this function
and hands it the resolved tool, context and validated arguments; this function is
step 7 only: execute with the tool's timeout while heartbeating.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

from ..tools import Tool, ToolContext, ToolResult, execute_with_timeout

HEARTBEAT_EVERY_SECONDS = 5.0


class ToolCall(BaseModel):
    """Input of a tool activity. Recorded in workflow history: must not hold secrets."""

    call_id: str = Field(min_length=1, max_length=200)
    """The LLM's id for this call; with the workflow run id it makes the tool-call id."""
    arguments: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ApprovedCall:
    """What the gate approved; handed to the activity body for this task only."""

    tool: Tool
    context: ToolContext
    arguments: Mapping[str, Any]


approved_call: ContextVar[ApprovedCall | None] = ContextVar("toolgate_approved_call", default=None)


@activity.defn(dynamic=True)
async def run_tool(args: Sequence[RawValue]) -> ToolResult:  # noqa: ARG001 - the gate decoded them
    call = approved_call.get()
    if call is None:
        # Fail closed: a worker without the governance interceptor must not run tools.
        raise ApplicationError(
            "tool activity reached without the governance interceptor; refusing to run",
            type="GovernanceMissing",
            non_retryable=True,
        )
    async with heartbeating():
        return await execute_with_timeout(call.tool, call.context, call.arguments)


@contextlib.asynccontextmanager
async def heartbeating() -> AsyncIterator[None]:
    """Heartbeat while the body runs, so a dead worker is noticed in one heartbeat
    timeout instead of the whole start-to-close timeout."""
    task = asyncio.create_task(_heartbeat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _heartbeat() -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(HEARTBEAT_EVERY_SECONDS)
