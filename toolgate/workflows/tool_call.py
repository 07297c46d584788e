"""ToolCall: one governed tool call as a workflow, for callers outside an agent run.

The REST API's invoke runs through here so that every call, even a direct one, is
durable, audited and visible in the Temporal UI under the tool's own name.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from ..activities.tool_call import ToolCall
    from ..tools import Capability, ToolResult
    from .retry import retry_policy_for

#: Time the gate itself may take on top of the tool's own timeout.
GATE_MARGIN = timedelta(seconds=30)
HEARTBEAT_TIMEOUT = timedelta(seconds=30)


class ToolCallRequest(BaseModel):
    """Input of the ToolCall workflow. Recorded in history: must not hold secrets."""

    tool: str
    call_id: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)
    capability: Capability
    idempotent: bool = False
    timeout_seconds: float = 60.0


@workflow.defn(name="ToolCall")
class ToolCallWorkflow:
    @workflow.run
    async def run(self, request: ToolCallRequest) -> ToolResult:
        try:
            result: ToolResult = await workflow.execute_activity(
                request.tool,
                ToolCall(call_id=request.call_id, arguments=request.arguments),
                result_type=ToolResult,
                start_to_close_timeout=timedelta(seconds=request.timeout_seconds) + GATE_MARGIN,
                heartbeat_timeout=HEARTBEAT_TIMEOUT,
                retry_policy=retry_policy_for(request.capability, request.idempotent),
                summary=f"{request.tool} ({request.capability.value})",
            )
            return result
        except ActivityError as err:
            # The call could not be completed (infrastructure); fail this workflow
            # visibly. It is never retried as a whole: a mutating tool may have run.
            cause = err.cause.message if isinstance(err.cause, ApplicationError) else str(err.cause)
            raise ApplicationError(
                f"tool {request.tool!r} could not be completed: {cause}",
                type="ToolCallFailed",
                non_retryable=True,
            ) from err
