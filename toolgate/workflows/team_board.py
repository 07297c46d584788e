"""TeamBoard: one long-lived workflow per team holds its tasks (spec §11, DESIGN §3).

Every change is the Workflow Update ``act``, whose validator runs the board's rules
(``tools.team.Board.check``): an illegal move (a second claim, a complete by someone
else, a cycle) is rejected before it is written to history, so of 20 agents claiming
one task at once exactly one is accepted, with no row lock anywhere. Reads are
queries. The run loop writes each change to Postgres (listing, search, history, SSE)
and delivers the board's notices (``teammate: ...`` to the lead's session, news to a
teammate's session) by activities, then continues-as-new before its history grows
large. Questions to the user wait on durable timers.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field, field_serializer
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from ..activities.teams import BoardDelivery, BoardMirror
    from ..tools.team import READS, Board, BoardAction, BoardEvent, BoardRefusal, Question, Task

MIRROR_TIMEOUT = timedelta(seconds=30)
MIRROR_RETRY = RetryPolicy(maximum_interval=timedelta(seconds=30))
CONTINUE_AFTER = 500
"""Updates per run before continue-as-new (sooner if the server suggests it)."""


class TeamBoardInput(BaseModel):
    """The board's whole state: how it starts, and how it continues as new."""

    tenant_id: str
    team_id: str
    lead: str
    members: dict[str, str]
    """agent id → role."""
    sessions: dict[str, str]
    """agent id → the member's team session."""
    tasks: dict[str, Task] = Field(default_factory=dict)
    questions: dict[str, Question] = Field(default_factory=dict)
    deadlines: dict[str, datetime] = Field(default_factory=dict)
    next_id: int = 1
    seq: int = 1
    continue_after: int = CONTINUE_AFTER

    @field_serializer("tasks")
    def _compact(self, tasks: dict[str, Task]) -> dict[str, Any]:
        """Fields left at their defaults are not carried (half the bytes of a task)."""
        return {k: t.model_dump(mode="json", exclude_defaults=True) for k, t in tasks.items()}


class BoardReply(BaseModel):
    result: Any


@workflow.defn(name="TeamBoard")
class TeamBoardWorkflow:
    @workflow.init
    def __init__(self, start: TeamBoardInput) -> None:
        """From the input, before any handler runs: an Update that arrives with the
        start is checked against the real board, not an empty one."""
        self._state: TeamBoardInput | None = None
        self._board = Board("", {})
        self._seq = 1
        self._outbox: list[BoardEvent] = []
        self._changed: set[str] = set()
        self._updates = 0
        self._load(start)

    @workflow.run
    async def run(self, start: TeamBoardInput) -> None:  # noqa: ARG002 - read by __init__
        while True:
            try:
                await workflow.wait_condition(
                    lambda: bool(self._outbox) or self._should_continue(),
                    timeout=self._until_next_deadline(),
                )  # fmt: skip
            except TimeoutError:
                pass  # a question's deadline: expired below
            self._expire_questions()
            if self._outbox:
                await self._flush()
            elif self._should_continue():
                await workflow.wait_condition(workflow.all_handlers_finished)
                if not self._outbox:
                    workflow.continue_as_new(self._snapshot())

    def _load(self, start: TeamBoardInput) -> None:
        self._state = start
        self._board = Board(start.lead, start.members, dict(start.tasks), start.next_id,
                            dict(start.questions))  # fmt: skip
        self._seq = start.seq

    def _snapshot(self) -> TeamBoardInput:
        assert self._state is not None
        return self._state.model_copy(update={
            "tasks": self._board.tasks, "questions": self._board.questions,
            "next_id": self._board.next_id, "seq": self._seq,
        })  # fmt: skip

    def _should_continue(self) -> bool:
        assert self._state is not None
        return (
            self._updates >= self._state.continue_after
            or workflow.info().is_continue_as_new_suggested()
        )

    # -- questions ---------------------------------------------------------------------

    def _until_next_deadline(self) -> timedelta | None:
        assert self._state is not None
        waiting = [d for q, d in self._state.deadlines.items()
                   if self._board.questions[q].state == "waiting"]  # fmt: skip
        if not waiting:
            return None
        return max(min(waiting) - workflow.now(), timedelta(seconds=0))

    def _expire_questions(self) -> None:
        assert self._state is not None
        now = workflow.now()
        for qid, deadline in list(self._state.deadlines.items()):
            if deadline <= now:
                del self._state.deadlines[qid]
                self._record(self._board.expire(qid, self._seq))

    # -- changes -----------------------------------------------------------------------

    @workflow.update
    async def act(self, action: BoardAction) -> BoardReply:
        """One change of the board. The validator said it was legal when it arrived; an
        update accepted in the same batch may have changed that, so the rules run again
        (of 20 claims in one batch, one wins and 19 fail here)."""
        try:
            result, events = self._board.apply(action, self._seq)
        except BoardRefusal as refusal:
            raise ApplicationError(refusal.message, type=refusal.code) from None
        self._record(events)
        self._updates += 1
        if action.action == "ask_user":
            assert self._state is not None
            deadline = workflow.now() + timedelta(minutes=action.timeout_minutes)
            self._state.deadlines[result["id"]] = deadline
        return BoardReply(result=result)

    @act.validator
    def _legal(self, action: BoardAction) -> None:
        if action.action in READS:
            raise ApplicationError(f"{action.action} is a read: use the board's queries",
                                   type="invalid_arguments")  # fmt: skip
        try:
            self._board.check(action)
        except BoardRefusal as refusal:
            raise ApplicationError(refusal.message, type=refusal.code) from None

    def _record(self, events: list[BoardEvent]) -> None:
        self._seq += len(events)
        self._outbox.extend(events)
        self._changed.update(e.task_id for e in events if e.task_id in self._board.tasks)

    async def _flush(self) -> None:
        """Postgres first (what a notice points to is then readable), then the notices."""
        assert self._state is not None
        events, self._outbox = self._outbox, []
        changed, self._changed = sorted(self._changed), set()
        tasks = [self._board.tasks[t] for t in changed]
        await workflow.execute_activity(
            "BoardMirror", BoardMirror(team_id=self._state.team_id, tasks=tasks, events=events),
            start_to_close_timeout=MIRROR_TIMEOUT, retry_policy=MIRROR_RETRY,
        )  # fmt: skip
        deliveries = []
        for event in events:
            for notice in event.notices:
                target = self._state.lead if notice.to == "lead" else notice.to
                session = notice.session or self._state.sessions.get(target)
                if session:
                    deliveries.append((session, notice.text))
        if deliveries:
            await workflow.execute_activity(
                "BoardDeliver", BoardDelivery(tenant_id=self._state.tenant_id,
                                              messages=deliveries),
                start_to_close_timeout=MIRROR_TIMEOUT, retry_policy=MIRROR_RETRY,
            )  # fmt: skip

    # -- reads -------------------------------------------------------------------------

    @workflow.query
    def tasks(self, status: str | None = None) -> list[Task]:
        return [t for t in self._board.tasks.values() if status is None or t.status == status]

    @workflow.query
    def task(self, task_id: str) -> Task | None:
        return self._board.tasks.get(task_id)

    @workflow.query
    def questions(self) -> list[Question]:
        return list(self._board.questions.values())
