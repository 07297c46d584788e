"""The parent side of subagents and delegations (spec §13, §4 Delegation).

The ``spawn`` and ``delegate`` tools start and cancel child workflows, so the agent
loop runs them itself, here. Ids are the parent's id plus ``-sub-<n>`` or
``-del-<n>``: deterministic, and scoped to their parent, so an id of another parent
(or tenant) is simply unknown. Children report their end, and 60 minutes later
their archival, by the ``subagent_update`` signal; the parent's record of them is
workflow state (it survives worker restarts) mirrored in Postgres by activities.

Who ends with the parent: subagents and sync delegations are started with
``REQUEST_CANCEL``, so Temporal cancels them when the parent closes in any way;
async delegations with ``ABANDON``, so they outlive it and deliver to its session.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from ..activities.child_runs import ChildAdmission, ChildAdmitInput, ChildDelivery
    from ..providers import ToolCallOut
    from ..tools import SpawnSettings, ToolResult
    from ..tools.builtin.spawn import DelegateArgs, SpawnArgs

if TYPE_CHECKING:
    from .agent_run import AgentRunInput

ADMIT_TIMEOUT = timedelta(seconds=30)
SETTLE_TIMEOUT = timedelta(minutes=5)
"""How long a parent waits for the children it cancelled to report their end."""
ADMIT_RETRY = RetryPolicy(maximum_interval=timedelta(seconds=10), maximum_attempts=10)


class ChildRecord(BaseModel):
    """What the parent knows of one child, shown by ``list`` and the ``children`` query."""

    id: str
    kind: Literal["spawn", "delegate"]
    mode: Literal["sync", "async"]
    label: str
    task: str
    agent_id: str
    state: str
    """``running``, ``completed``, ``failed``, ``cancelled``, ``max_iterations``."""
    result: str = ""
    archived: bool = False
    replaced_by: str = ""


class ChildUpdate(BaseModel):
    id: str
    state: str
    result: str = ""
    archived: bool = False


class SteerRequest(BaseModel):
    id: str
    task: str = Field(min_length=1, max_length=100_000)


class ChildParent:
    """Mixin of the agent loop: ``_pending`` and ``_start`` belong to the loop."""

    _pending: list[str]
    _start: AgentRunInput | None
    _cancelled: bool

    def __init__(self) -> None:
        self._children: dict[str, ChildRecord] = {}
        self._handles: dict[str, workflow.ChildWorkflowHandle[Any, Any]] = {}
        self._counter = 0
        self._last_spawn: str | None = None
        self._awaited: set[str] = set()
        self._reported: set[str] = set()
        self._unread: list[str] = []
        """Reports of async delegations not yet read by the LLM: forwarded at the end."""
        self._limits = SpawnSettings()

    # -- what children and operators send -------------------------------------------

    @workflow.signal
    def subagent_update(self, update: ChildUpdate) -> None:
        """A child ended (or was archived). An async child's end becomes a message."""
        record = self._children.get(update.id)
        if record is None:
            return
        self._reported.add(update.id)
        record.archived = record.archived or update.archived
        if record.state != "running":
            return
        record.state, record.result = update.state, update.result
        if record.mode == "async" and record.id not in self._awaited:
            who = f"subagent {record.id}" if record.kind == "spawn" else f"delegate {record.id}"
            label = f" ({record.label})" if record.label else ""
            report = f"[{who}{label} {record.state}] {record.result}"
            self._pending.append(report)
            if record.kind == "delegate":
                self._unread.append(report)

    @workflow.query
    def children(self) -> list[ChildRecord]:
        return list(self._children.values())

    @workflow.update
    async def cancel_child(self, child_id: str) -> ChildRecord:
        """REST: cancel one running child of this run."""
        self._cancel_ids([child_id])
        return self._children[child_id]

    @cancel_child.validator
    def _check_cancel(self, child_id: str) -> None:
        self._known(child_id, running=True)

    @workflow.update
    async def steer_child(self, request: SteerRequest) -> ChildRecord:
        """REST: cancel a running subagent and start it again with a new task."""
        result = await self._steer(request.id, request.task)
        if result.is_error:
            raise ApplicationError(result.for_llm, type="steer_failed")
        return self._children[json.loads(result.for_llm)["id"]]

    @steer_child.validator
    def _check_steer(self, request: SteerRequest) -> None:
        record = self._known(request.id, running=True)
        if record.kind != "spawn":
            raise ValueError(f"{request.id} is a delegation; only subagents can be steered")

    def _known(self, child_id: str, running: bool) -> ChildRecord:
        record = self._children.get(child_id)
        if record is None:
            raise ValueError(f"no subagent {child_id!r} of this run")
        if running and record.state != "running":
            raise ValueError(f"subagent {child_id} is {record.state}")
        return record

    # -- the tools ---------------------------------------------------------------------

    def _running(self, kind: str, mode: str | None = None) -> list[ChildRecord]:
        return [r for r in self._children.values() if r.kind == kind and r.state == "running"
                and (mode is None or r.mode == mode)]  # fmt: skip

    def _cancel_children(self) -> None:
        """The parent stops: its subagents and sync delegations stop too."""
        ending = [r.id for r in self._children.values() if r.kind == "spawn" or r.mode == "sync"]
        self._cancel_ids(ending)

    def _cancel_ids(self, ids: list[str]) -> list[str]:
        cancelled = []
        for child_id in ids:
            record = self._children[child_id]
            if record.state == "running" and child_id in self._handles:
                self._handles[child_id].cancel()
                record.state = "cancelled"
                cancelled.append(child_id)
        return cancelled

    async def _settle_cancelled(self) -> None:
        """Before the parent ends, the children it cancelled have stopped (as a run's
        tools have): each reports its end by signal once its own tools have stopped.
        (The handle cannot tell: cancelling it marks it done at once.)"""
        waiting = [r.id for r in self._children.values() if r.state == "cancelled"]
        try:
            await workflow.wait_condition(
                lambda: all(c in self._reported for c in waiting), timeout=SETTLE_TIMEOUT
            )
        except TimeoutError:
            workflow.logger.warning("cancelled children did not report: %s", waiting)

    def _read(self, message: str) -> None:
        """The loop gave ``message`` to the LLM."""
        if message in self._unread:
            self._unread.remove(message)

    async def _forward_unread(self) -> None:
        """An async delegation outlives its parent's reading: what the parent did not
        read (it was cancelled, say) goes to its session, which starts a run with it."""
        assert self._start is not None
        while self._unread:
            text = self._unread.pop(0)
            if text in self._pending:
                self._pending.remove(text)  # forwarded, so not read here as well
            if self._start.session_id is None:
                continue  # no session to tell: the answer stays in GET /v1/delegations
            delivery = ChildDelivery(tenant_id=self._start.agent.tenant_id,
                                     session_id=self._start.session_id, text=text,
                                     ending_run=workflow.info().workflow_id)  # fmt: skip
            await workflow.execute_activity(
                "ChildDeliver", delivery, start_to_close_timeout=ADMIT_TIMEOUT,
                retry_policy=ADMIT_RETRY,
            )  # fmt: skip

    async def _child_tool(self, call: ToolCallOut) -> ToolResult:
        try:
            if call.name == "delegate":
                return await self._delegate(DelegateArgs.model_validate(call.arguments))
            return await self._spawn_action(SpawnArgs.model_validate(call.arguments))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            return ToolResult.error("invalid_arguments", f"{call.name}: {where}: {first['msg']}")

    async def _spawn_action(self, args: SpawnArgs) -> ToolResult:
        if args.action in {"spawn", "run"}:
            return await self._spawn(args)
        if args.action == "list":
            shown = [r.model_dump() for r in self._children.values()
                     if args.include_archived or not r.archived]  # fmt: skip
            return ToolResult.ok(json.dumps(shown))
        if args.action == "cancel":
            return self._cancel(args.id)
        return await self._steer(args.id, args.task)

    async def _spawn(self, args: SpawnArgs) -> ToolResult:
        if not args.task.strip():
            return ToolResult.error("invalid_arguments", "spawn needs a task for the subagent")
        limit = self._limits.max_children
        if len(self._running("spawn")) >= limit:
            return ToolResult.error(
                "subagent_rejected",
                f"rejected: at most {limit} running subagents per agent (limit "
                "max_children); wait for one to finish or cancel one",
            )
        mode: Literal["sync", "async"] = "sync" if args.action == "run" else "async"
        started = await self._start_child("spawn", mode, args.task, args.label)
        if isinstance(started, ToolResult):
            return started
        if args.action == "spawn":
            return ToolResult.ok(json.dumps({"id": started.id, "label": args.label,
                                             "state": "running"}))  # fmt: skip
        return await self._await(started, args.timeout_seconds)

    async def _delegate(self, args: DelegateArgs) -> ToolResult:
        if not args.task.strip():
            return ToolResult.error("invalid_arguments", "delegate needs a task for the agent")
        started = await self._start_child("delegate", args.mode, args.task, args.agent,
                                          target=args.agent)  # fmt: skip
        if isinstance(started, ToolResult):
            return started
        if args.mode == "async":
            return ToolResult.ok(json.dumps({"id": started.id, "agent": args.agent,
                                             "state": "running"}))  # fmt: skip
        return await self._await(started, args.timeout_seconds)

    async def _await(self, record: ChildRecord, timeout_seconds: float) -> ToolResult:
        self._awaited.add(record.id)
        try:
            await workflow.wait_condition(
                lambda: record.state != "running", timeout=timedelta(seconds=timeout_seconds)
            )
        except TimeoutError:
            if record.kind == "delegate":
                self._cancel_ids([record.id])
                return ToolResult.error(
                    "delegate_timeout",
                    f"{record.label} did not answer within {timeout_seconds:g} s; the "
                    "delegation was cancelled (try async mode for long tasks)",
                )
            record.mode = "async"  # its end will be announced like a spawned one's
            return ToolResult.error(
                "subagent_timeout",
                f"subagent {record.id} did not finish within {timeout_seconds:g} s; it goes "
                "on, and its result will come as a message (or cancel it)",
            )
        finally:
            self._awaited.discard(record.id)
        if record.state != "completed":
            return ToolResult.error(
                "subagent_failed", f"{record.id} ended {record.state}: {record.result}"
            )
        return ToolResult.ok(record.result)

    async def _start_child(
        self, kind: Literal["spawn", "delegate"], mode: Literal["sync", "async"], task: str,
        label: str, target: str = "",
    ) -> ChildRecord | ToolResult:  # fmt: skip
        from .agent_run import AgentRunInput
        from .subagent import ChildRunInput

        assert self._start is not None
        self._counter += 1
        parent_id = workflow.info().workflow_id
        child_id = f"{parent_id}-{'sub' if kind == 'spawn' else 'del'}-{self._counter}"
        caller = self._start.agent
        # A local activity: a short Postgres transaction, run by this worker within the
        # workflow task (one server round trip less on every spawn).
        admission: ChildAdmission = await workflow.execute_local_activity(
            "ChildAdmit",
            ChildAdmitInput(agent=caller, child_id=child_id, parent_id=parent_id,
                            parent_session_id=self._start.session_id, kind=kind, mode=mode,
                            label=label, task=task, target=target),
            result_type=ChildAdmission, start_to_close_timeout=ADMIT_TIMEOUT,
            retry_policy=ADMIT_RETRY,
        )  # fmt: skip
        if not admission.admitted:
            return ToolResult.error(admission.code, admission.message)
        depth = caller.subagent_depth + 1
        if kind == "spawn":
            ref = caller.model_copy(update={"subagent_depth": depth})
        else:  # the other agent, with its own policy: none of the caller's request lists
            ref = caller.model_copy(update={"agent_id": admission.target_agent_id,
                                            "subagent_depth": depth, "provider": "",
                                            "request_allow": None})  # fmt: skip
        max_iterations = self._limits.max_iterations if kind == "spawn" else None
        start = ChildRunInput(
            run=AgentRunInput(agent=ref, message=task, max_iterations=max_iterations),
            parent_id=parent_id, child_id=child_id, kind=kind, mode=mode,
            parent_session_id=self._start.session_id,
            archive_after_minutes=self._limits.archive_after_minutes,
        )  # fmt: skip
        abandon = kind == "delegate" and mode == "async"
        self._handles[child_id] = await workflow.start_child_workflow(
            "Subagent" if kind == "spawn" else "Delegation",
            start,
            id=child_id,
            parent_close_policy=ParentClosePolicy.ABANDON if abandon
            else ParentClosePolicy.REQUEST_CANCEL,
            static_summary=f"{kind} {label or child_id}: {task[:80]}",
        )  # fmt: skip
        record = ChildRecord(id=child_id, kind=kind, mode=mode, label=label, task=task,
                             agent_id=ref.agent_id, state="running")  # fmt: skip
        self._children[child_id] = record
        if kind == "spawn":
            self._last_spawn = child_id
        if self._cancelled and not abandon:  # the parent was cancelled while it started
            self._cancel_ids([child_id])
        return record

    def _cancel(self, which: str) -> ToolResult:
        if which == "all":
            targets = [r.id for r in self._running("spawn")]
        elif which == "last":
            targets = [self._last_spawn] if self._last_spawn else []
        else:
            targets = [which]
        if not targets and which == "all":
            return ToolResult.ok(json.dumps({"cancelled": []}))
        if not targets or any(t not in self._children for t in targets):
            return ToolResult.error(
                "unknown_subagent", f"no subagent {which!r} of this agent; list them first"
            )
        cancelled = self._cancel_ids(targets)
        ended = {t: self._children[t].state for t in targets if t not in cancelled}
        return ToolResult.ok(json.dumps({"cancelled": cancelled, "already_ended": ended}))

    async def _steer(self, child_id: str, task: str) -> ToolResult:
        record = self._children.get(child_id)
        if record is None or record.kind != "spawn":
            return ToolResult.error("unknown_subagent", f"no subagent {child_id!r} of this agent")
        if record.state != "running":
            return ToolResult.error(
                "subagent_finished", f"subagent {child_id} is {record.state}; spawn a new one"
            )
        if not task.strip():
            return ToolResult.error("invalid_arguments", "steer needs the new task")
        self._cancel_ids([child_id])
        started = await self._start_child("spawn", record.mode, task, record.label)
        if isinstance(started, ToolResult):
            return started
        record.replaced_by = started.id
        return ToolResult.ok(json.dumps({"id": started.id, "label": record.label,
                                         "replaces": child_id, "state": "running"}))  # fmt: skip
