"""Delivering a message to a session: signal its running AgentRun, or start one.

Shared by the REST API (POST /v1/sessions/{id}/messages) and the ``sessions_send``
tool, so both follow the same rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy
from temporalio.service import RPCError, RPCStatusCode

from .activities.agent import AgentRef
from .store import Session
from .tools import CallContext
from .worker.context import call_context
from .workflows import AgentRunInput, AgentRunWorkflow, UserMessage

if TYPE_CHECKING:
    from .services import Services


async def is_running(handle: WorkflowHandle[Any, Any]) -> bool:
    try:
        return (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
    except RPCError:
        return False


async def deliver(
    services: Services, client: Client, session: Session, text: str, ending_run: str = ""
) -> tuple[str, str]:
    """(run id, ``signalled`` or ``started``). ``ending_run``: a run that is still open but
    will read no more messages (it is forwarding what it did not read)."""
    if session.current_run is not None and session.current_run != ending_run:
        handle = client.get_workflow_handle_for(AgentRunWorkflow.run, session.current_run)
        if await is_running(handle):
            try:
                await handle.signal(AgentRunWorkflow.user_message, UserMessage(text=text))
                return session.current_run, "signalled"
            except RPCError as exc:
                if exc.status != RPCStatusCode.NOT_FOUND:
                    raise  # otherwise it ended between the two calls: start the next run
    history = await services.sessions_store.messages(session.id, 0, 10_000)
    run_id = await services.sessions_store.next_run(session.tenant_id, session.id)
    ref = AgentRef(tenant_id=session.tenant_id, agent_id=session.agent_id, user_id=session.user_id,
                   channel=session.channel, chat_id=session.chat_id)  # fmt: skip
    start = AgentRunInput(agent=ref, message=text, history=history, session_id=session.id)
    context = CallContext(tenant_id=session.tenant_id, agent_id=session.agent_id,
                          user_id=session.user_id, session_key=session.id,
                          channel=session.channel, chat_id=session.chat_id)  # fmt: skip
    with call_context(context):
        await client.start_workflow(
            AgentRunWorkflow.run, start, id=run_id, task_queue=services.settings.task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            static_summary=f"session {session.id}",
        )  # fmt: skip
    return run_id, "started"
