"""ToolCall: one governed tool call as a workflow, for callers outside an agent run.

The REST API's invoke runs through here so that every call, even a direct one, is
durable, audited and visible in the Temporal UI under the tool's own name.

When the gate answers ``approval_required`` (a package install), the workflow waits
durably for the ``decide`` signal: approve runs the call again (the gate then finds
the recorded approval of exactly this command), deny or the timeout ends it with
``approval_denied`` / ``approval_timeout``. The ``status`` query tells a caller it
is waiting.
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

DEFAULT_APPROVAL_TIMEOUT = 15 * 60.0
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
    approval_timeout_seconds: float = Field(default=DEFAULT_APPROVAL_TIMEOUT, gt=0, le=7 * 86400)
    """How long a call that needs a human's approval waits before it is denied."""


class ApprovalDecision(BaseModel):
    approval_id: str
    approved: bool
    decided_by: str = ""


class ToolCallStatus(BaseModel):
    state: str
    """``running``, ``awaiting_approval`` or ``done``."""
    approval_id: str | None = None


@workflow.defn(name="ToolCall")
class ToolCallWorkflow:
    def __init__(self) -> None:
        self._status = ToolCallStatus(state="running")
        self._decision: ApprovalDecision | None = None

    @workflow.run
    async def run(self, request: ToolCallRequest) -> ToolResult:
        result = await self._call(request)
        if result.error_code == "approval_required":
            result = await self._await_approval(request, result)
        self._status = ToolCallStatus(state="done")
        return result

    @workflow.signal
    def decide(self, decision: ApprovalDecision) -> None:
        if decision.approval_id == self._status.approval_id and self._decision is None:
            self._decision = decision

    @workflow.query
    def status(self) -> ToolCallStatus:
        return self._status

    async def _await_approval(self, request: ToolCallRequest, asked: ToolResult) -> ToolResult:
        approval_id = asked.details.get("approval_id", "")
        self._status = ToolCallStatus(state="awaiting_approval", approval_id=approval_id)
        try:
            await workflow.wait_condition(
                lambda: self._decision is not None,
                timeout=timedelta(seconds=request.approval_timeout_seconds),
                timeout_summary="approval timeout",
            )
        except TimeoutError:
            return ToolResult.error(
                "approval_timeout",
                f"nobody approved this within {request.approval_timeout_seconds:g} s; "
                "it was not run",
                {**asked.details},
            )
        assert self._decision is not None
        if not self._decision.approved:
            return ToolResult.error(
                "approval_denied", "an admin denied this command; it was not run", asked.details
            )
        self._status = ToolCallStatus(state="running", approval_id=approval_id)
        return await self._call(request)

    async def _call(self, request: ToolCallRequest) -> ToolResult:
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
