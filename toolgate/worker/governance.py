"""The governance interceptor: every tool activity passes the gate (DESIGN §2).

Step 1 (context from headers) happens here; steps 2-9 are ``governed_call`` of
``toolgate.tools``; step 7 re-enters the activity (``run_tool``) with the approved
call. Only scrubbed results leave this interceptor, so unscrubbed output never
reaches workflow history.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from ..activities.tool_call import ApprovedCall, ToolCall, approved_call, run_tool
from ..tools import Governance, Tool, ToolContext, ToolResult, build_context, governed_call
from ..tools.errors import InfrastructureError, ToolRefusal
from .context import read_context


class GovernanceInterceptor(Interceptor):
    """Install on the worker that runs tool activities."""

    def __init__(self, governance: Governance, workspace_root: Path) -> None:
        self._governance = governance
        self._workspace_root = workspace_root

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _GovernedActivity(next, self._governance, self._workspace_root)


def _decode_call(args: Any) -> ToolCall:
    """Dynamic activities receive ``[Sequence[RawValue]]``; the first value is the call."""
    raw_values = args[0] if args else []
    if len(raw_values) != 1:
        raise ApplicationError(
            f"a tool activity takes one ToolCall argument, got {len(raw_values)}",
            type="InvalidToolCall",
            non_retryable=True,
        )
    try:
        value = pydantic_data_converter.payload_converter.from_payload(
            raw_values[0].payload, ToolCall
        )
    except Exception as exc:
        raise ApplicationError(
            f"tool activity argument is not a ToolCall: {exc}",
            type="InvalidToolCall",
            non_retryable=True,
        ) from exc
    assert isinstance(value, ToolCall)
    return value


class _GovernedActivity(ActivityInboundInterceptor):
    def __init__(
        self, next: ActivityInboundInterceptor, governance: Governance, workspace_root: Path
    ) -> None:
        super().__init__(next)
        self._governance = governance
        self._workspace_root = workspace_root

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        if input.fn is not run_tool:
            return await self.next.execute_activity(input)
        info = activity.info()
        call = _decode_call(input.args)
        try:
            ctx = build_context(
                read_context(input.headers),
                self._workspace_root,
                tool_call_id=f"{info.workflow_run_id}:{call.call_id}",
                workflow_id=info.workflow_id or "",
            )
        except ToolRefusal as exc:  # e.g. an id that cannot name a workspace
            return ToolResult.error(exc.code, exc.message)

        async def execute(tool: Tool, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
            token = approved_call.set(ApprovedCall(tool, ctx, args))
            try:
                result = await self.next.execute_activity(input)
            finally:
                approved_call.reset(token)
            assert isinstance(result, ToolResult)
            return result

        try:
            return await governed_call(
                self._governance, ctx, info.activity_type, call.arguments, execute
            )
        except InfrastructureError as exc:
            # Retryable: Temporal's policy for this tool's capability decides.
            raise ApplicationError(exc.message, type="InfrastructureError") from exc
