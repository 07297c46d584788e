"""Subagent and Delegation: an agent loop one level deeper, with spec §13's lifecycle.

Spawning → Running | Rejected (the parent's admission); Running → Completed | Failed |
Cancelled; Completed → Archived ``archive_after_minutes`` later, by a durable timer
inside this workflow (not a cron job). The end and the archival are written to
Postgres and signalled to the parent. An async delegation whose parent has ended
delivers its answer to the parent's session instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import timedelta
from typing import Literal, TypeVar

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.exceptions import CancelledError

with workflow.unsafe.imports_passed_through():
    from ..activities.child_runs import ChildDelivery, ChildEnd
    from ..tools import CallContext

from ._children import ADMIT_RETRY, ChildUpdate
from .agent_run import AgentLoop, AgentRunInput, AgentRunStatus

RECORD_TIMEOUT = timedelta(seconds=30)
T = TypeVar("T")


class ChildRunInput(BaseModel):
    run: AgentRunInput
    parent_id: str
    child_id: str
    kind: Literal["spawn", "delegate"]
    mode: Literal["sync", "async"]
    parent_session_id: str | None = None
    archive_after_minutes: int = Field(default=60, ge=1)

    def child_context(self, parent: CallContext) -> CallContext:
        """The call context of this child's tools (see worker.context): one level
        deeper; a delegation acts as the other agent, under its own policy."""
        ref = self.run.agent
        if self.kind == "spawn":
            return parent.model_copy(update={"subagent_depth": ref.subagent_depth})
        return CallContext(tenant_id=ref.tenant_id, agent_id=ref.agent_id,
                           user_id=parent.user_id, subagent_depth=ref.subagent_depth)  # fmt: skip


class _ChildRun(AgentLoop):
    def __init__(self) -> None:
        super().__init__()
        self._phase = "running"

    async def _lifecycle(self, start: ChildRunInput) -> AgentRunStatus:
        status = await self._execute(start.run)
        self._phase = status.state
        result = status.final_text or status.error
        end = ChildEnd(child_id=start.child_id, state=status.state, result=result)
        await self._activity_once("ChildFinish", end)
        told = await self._tell_parent(start, ChildUpdate(id=end.child_id, state=end.state,
                                                          result=result))  # fmt: skip
        if not told and start.mode == "async" and start.parent_session_id:
            who = f"[{start.kind} {start.child_id} {status.state}] {result}"
            await self._activity_once("ChildDeliver", ChildDelivery(
                tenant_id=start.run.agent.tenant_id, session_id=start.parent_session_id,
                text=who))  # fmt: skip
        if status.state == "completed":
            await self._archive_after(timedelta(minutes=start.archive_after_minutes))
            self._phase = "archived"
            await self._activity_once("ChildArchive", start.child_id)
            update = ChildUpdate(id=start.child_id, state=status.state, result=result,
                                 archived=True)  # fmt: skip
            await self._tell_parent(start, update)
        return status

    async def _archive_after(self, delay: timedelta) -> None:
        await workflow.sleep(delay)

    async def _activity_once(self, name: str, arg: object) -> None:
        await _steady(workflow.execute_activity(
            name, arg, start_to_close_timeout=RECORD_TIMEOUT, retry_policy=ADMIT_RETRY
        ))  # fmt: skip

    async def _tell_parent(self, start: ChildRunInput, update: ChildUpdate) -> bool:
        parent = workflow.get_external_workflow_handle(start.parent_id)
        try:
            await _steady(parent.signal("subagent_update", update))
        except Exception:  # the parent has ended: nobody listens
            return False
        return True

    @workflow.query
    def phase(self) -> str:
        """``running``, the end state, then ``archived`` after the archival timer."""
        return self._phase


@workflow.defn(name="Subagent")
class SubagentWorkflow(_ChildRun):
    """A subagent of the same agent (``spawn``)."""

    @workflow.run
    async def run(self, start: ChildRunInput) -> AgentRunStatus:
        return await self._lifecycle(start)


@workflow.defn(name="Delegation")
class DelegationWorkflow(_ChildRun):
    """A task run by another agent (``delegate``), under that agent's own policy."""

    @workflow.run
    async def run(self, start: ChildRunInput) -> AgentRunStatus:
        return await self._lifecycle(start)


async def _steady(step: Awaitable[T]) -> T:
    """Run ``step`` to its end even if this workflow is asked to cancel meanwhile.

    After the run itself, the bookkeeping (record the end, tell the parent, the
    archival timer) must happen: the parent closing (``REQUEST_CANCEL``) cancels a
    completed subagent too, and completed is final.
    """
    task = asyncio.ensure_future(step)
    while True:
        try:
            return await asyncio.shield(task)
        except (asyncio.CancelledError, CancelledError):
            if task.done():
                return task.result()
