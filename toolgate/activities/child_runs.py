"""Activities of subagents and delegations: admission, end, archive, late delivery.

Admission is where the limits that span workflows live: the tenant-wide count of
running subagents (a Postgres row lock makes it hold across workers) and the agent
links of a delegation. Everything else about children is workflow state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel
from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

from ..store import ChildRun
from ..tools import spawn_limits
from .agent import AgentRef

if TYPE_CHECKING:
    from ..services import Services

#: Temporal's end of a workflow, as a child state, for rows whose end was never recorded.
_CLOSED = {
    WorkflowExecutionStatus.COMPLETED: "completed",
    WorkflowExecutionStatus.FAILED: "failed",
    WorkflowExecutionStatus.CANCELED: "cancelled",
    WorkflowExecutionStatus.TERMINATED: "cancelled",
    WorkflowExecutionStatus.TIMED_OUT: "failed",
    WorkflowExecutionStatus.CONTINUED_AS_NEW: "failed",
}


class ChildAdmitInput(BaseModel):
    agent: AgentRef
    """The caller."""
    child_id: str
    parent_id: str
    parent_session_id: str | None = None
    kind: Literal["spawn", "delegate"]
    mode: Literal["sync", "async"]
    label: str = ""
    task: str
    target: str = ""
    """delegate: the other agent's id or name."""


class ChildAdmission(BaseModel):
    admitted: bool
    target_agent_id: str = ""
    code: str = ""
    message: str = ""


class ChildEnd(BaseModel):
    child_id: str
    state: str
    result: str = ""


class ChildDelivery(BaseModel):
    tenant_id: str
    session_id: str
    text: str
    ending_run: str = ""
    """Set when the parent run forwards a report it will not read itself."""


class ChildRunActivities:
    def __init__(self, services: Services, client: Client) -> None:
        self._services = services
        self._client = client

    @activity.defn(name="ChildAdmit")
    async def admit(self, request: ChildAdmitInput) -> ChildAdmission:
        ref = request.agent
        target = ref.agent_id
        limit: int | None = None
        if request.kind == "delegate":
            found = await self._services.agent_links.delegation_target(
                ref.tenant_id, ref.agent_id, request.target, request.mode
            )
            if found is None:
                return ChildAdmission(
                    admitted=False, code="delegation_not_linked",
                    message=f"no agent link lets this agent delegate to {request.target!r} "
                    f"in {request.mode} mode; an admin adds one with POST /v1/agent-links",
                )  # fmt: skip
            target = found
        else:
            config = await self._services.configs.agent_config(ref.tenant_id, ref.agent_id)
            settings = config.settings.merged("spawn")[0] if config is not None else {}
            limit = spawn_limits(settings).max_concurrent
        child = ChildRun(
            id=request.child_id, tenant_id=ref.tenant_id, kind=request.kind, mode=request.mode,
            parent_id=request.parent_id, parent_session_id=request.parent_session_id,
            agent_id=ref.agent_id, target_agent_id=target, label=request.label,
            task=request.task, state="running", result="",
        )  # fmt: skip
        store = self._services.child_runs
        admission = await store.admit(child, limit)
        if not admission.admitted and await self._reconcile(ref.tenant_id, request.kind):
            admission = await store.admit(child, limit)
        if not admission.admitted:
            return ChildAdmission(
                admitted=False, code="subagent_rejected",
                message=f"rejected: your tenant already runs {admission.running} subagents "
                f"(limit max_concurrent = {limit}); wait for one to finish or cancel one",
            )  # fmt: skip
        return ChildAdmission(admitted=True, target_agent_id=target)

    async def _reconcile(self, tenant_id: str, kind: str) -> bool:
        """Close rows whose workflow has ended without saying so (terminated, say).
        True when a slot came free."""
        freed = False
        for child_id in await self._services.child_runs.running_ids(tenant_id, kind):
            try:
                status = (await self._client.get_workflow_handle(child_id).describe()).status
            except RPCError:
                continue  # not visible (yet): keep counting it
            if status is not None and status in _CLOSED:
                await self._services.child_runs.finish(child_id, _CLOSED[status], "")
                freed = True
        return freed

    @activity.defn(name="ChildFinish")
    async def finish(self, end: ChildEnd) -> None:
        await self._services.child_runs.finish(end.child_id, end.state, end.result)

    @activity.defn(name="ChildArchive")
    async def archive(self, child_id: str) -> None:
        await self._services.child_runs.archive(child_id)

    @activity.defn(name="ChildDeliver")
    async def deliver(self, delivery: ChildDelivery) -> str:
        """An async delegation's answer its parent run will not read (it has ended, or
        is ending): to the parent's session, which starts a run with it (or signals the
        session's running run)."""
        from ..conversations import deliver  # imports the workflows

        session = await self._services.sessions_store.get(delivery.tenant_id, delivery.session_id)
        if session is None:
            return "session gone"
        run_id, how = await deliver(
            self._services, self._client, session, delivery.text, delivery.ending_run
        )
        return f"{how} {run_id}"
