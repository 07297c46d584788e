"""One governed call started from outside an agent run: a ToolCall workflow on the
worker's queue, awaited until its result or until it waits for a human's approval.

The REST route ``POST /v1/tools/{name}/invoke`` and the MCP endpoint toolgate serves
both go through here, so both get the same gate, audit and idempotency.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from ..services import Services
from ..store import Agent
from ..tools import CallContext, ToolDescriptor, ToolResult
from ..worker.context import call_context
from ..workflows import ToolCallRequest, ToolCallStatus, ToolCallWorkflow

STATUS_POLL_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class Invoked:
    outcome: ToolResult | ToolCallStatus
    """The result, or the status of a call that waits for an approval."""
    workflow_id: str
    handle: WorkflowHandle[Any, ToolResult]


async def outcome(handle: WorkflowHandle[Any, ToolResult]) -> ToolResult | ToolCallStatus:
    """The result, or the status once the call waits for a human's approval.

    The result is awaited directly; every half second without one, the workflow is
    asked whether it is waiting for an approval (a cheap query), so a caller is not
    held for the approval's whole timeout.
    """
    waiting = asyncio.ensure_future(handle.result())
    try:
        while True:
            done, _ = await asyncio.wait({waiting}, timeout=STATUS_POLL_SECONDS)
            if done:
                return waiting.result()
            status = await handle.query(ToolCallWorkflow.status)
            if status.state == "awaiting_approval":
                return status
    finally:
        if not waiting.done():
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await waiting


async def invoke(
    services: Services,
    temporal: Client,
    agent: Agent,
    descriptor: ToolDescriptor,
    arguments: dict[str, Any],
    context: CallContext,
    call_id: str,
    approval_timeout_seconds: float = 900,
) -> Invoked:
    """Start (or, for a repeated ``call_id``, find) the call and wait for it.

    Raises ``WorkflowFailureError`` when the workflow itself failed.
    """
    workflow_id = f"toolcall-{agent.id}-{call_id}"
    request = ToolCallRequest(
        tool=descriptor.name,
        call_id=call_id,
        arguments=arguments,
        capability=descriptor.capability,
        idempotent=descriptor.idempotent,
        timeout_seconds=descriptor.timeout_seconds,
        approval_timeout_seconds=approval_timeout_seconds,
    )
    with call_context(context):
        try:
            handle = await temporal.start_workflow(
                ToolCallWorkflow.run,
                request,
                id=workflow_id,
                task_queue=services.settings.task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                static_summary=f"{descriptor.name} by agent {agent.name} ({agent.tenant_id})",
            )
        except WorkflowAlreadyStartedError:
            # The same call_id again: answer with the first call's result, run nothing.
            handle = temporal.get_workflow_handle_for(ToolCallWorkflow.run, workflow_id)
    return Invoked(await outcome(handle), workflow_id, handle)
