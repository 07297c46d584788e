"""The task board's rules (spec §11): who may move a task where, and what follows.

Pure: the TeamBoard workflow calls ``check`` in its Update validators (an illegal move
is rejected before it reaches history, so of two claims of one task exactly one is
accepted) and ``apply`` in the handlers. Dependencies: completing a task unblocks
every task whose blockers have all completed, in the same move; a blocker that fails
or is cancelled unblocks nothing, and the lead is told.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ToolRefusal
from ._model import ENDED, BoardAction, BoardEvent, NewTask, Notice, Question, Task


class BoardRefusal(ToolRefusal):
    """An illegal move; ``code`` says which rule (task_claimed, not_owner, ...)."""

    code = "illegal_move"


def _no(code: str, message: str) -> BoardRefusal:
    return BoardRefusal(message, code=code)


class Board:
    def __init__(
        self, lead: str, members: Mapping[str, str], tasks: dict[str, Task] | None = None,
        next_id: int = 1, questions: dict[str, Question] | None = None,
    ) -> None:  # fmt: skip
        self.lead = lead
        self.members = dict(members)
        """agent id → role; the lead is one of them."""
        self.tasks = tasks if tasks is not None else {}
        self.next_id = next_id
        self.questions = questions if questions is not None else {}

    # -- who ---------------------------------------------------------------------------

    def _leads(self, actor: str) -> bool:
        """The lead agent, or a person (``user:<id>``) acting on the board through REST."""
        return actor == self.lead or actor.startswith("user:")

    def _member(self, actor: str) -> None:
        if actor not in self.members and not actor.startswith("user:"):
            raise _no("not_a_member", f"{actor} is not a member of this team")

    def _lead_only(self, actor: str, action: str) -> None:
        if not self._leads(actor):
            raise _no("not_lead", f"only the team lead may {action} tasks")

    def task(self, task_id: str) -> Task:
        found = self.tasks.get(task_id)
        if found is None:
            raise _no("task_not_found", f"no task {task_id!r} on this board; list them first")
        return found

    # -- checks (validators: nothing changes) ------------------------------------------

    def check(self, a: BoardAction) -> None:
        """Raise BoardRefusal if ``a`` is illegal now; change nothing."""
        self._member(a.actor)
        getattr(self, f"_check_{a.action}", self._check_task)(a)

    def _check_task(self, a: BoardAction) -> None:
        if a.action not in {"create", "ask_user", "answer"}:
            self.task(a.task_id)

    def _check_create(self, a: BoardAction) -> None:
        new = a.tasks or [
            NewTask(
                title=a.title or "",
                description=a.description or "",
                blocked_by=a.blocked_by or [],
                require_approval=a.require_approval,
                require_review=a.require_review,
                assignee=a.assignee,
            )
        ]
        known = set(self.tasks)
        for n, spec in enumerate(new):
            if not spec.title.strip():
                raise _no("invalid_task", "a task needs a title")
            missing = [b for b in spec.blocked_by if b not in known]
            if missing:
                raise _no("unknown_dependency", f"blocked_by names no task: {', '.join(missing)}")
            if spec.assignee is not None and spec.assignee not in self.members:
                raise _no("not_a_member", f"assignee {spec.assignee} is not in this team")
            known.add(f"T{self.next_id + n}")

    def _check_claim(self, a: BoardAction) -> None:
        t = self.task(a.task_id)
        if t.status == "pending" and t.assignee not in (None, a.actor):
            raise _no("task_assigned", f"{t.id} is assigned to {t.assignee}")
        if t.status != "pending":
            raise _no(_claim_code(t), f"{t.id} cannot be claimed: it is {t.status}"
                      + (f" by {t.owner}" if t.owner else ""))  # fmt: skip

    def _check_complete(self, a: BoardAction) -> None:
        t = self.task(a.task_id)
        if t.status != "in_progress":
            raise _no("not_in_progress", f"{t.id} is {t.status}; claim it first")
        if t.owner != a.actor:
            raise _no("not_owner", f"{t.id} is claimed by {t.owner}; only its owner completes it")

    _check_review = _check_complete

    def _check_progress(self, a: BoardAction) -> None:
        self._check_complete(a)

    def _check_approve(self, a: BoardAction) -> None:
        self._lead_only(a.actor, "approve")
        t = self.task(a.task_id)
        if t.status not in {"in_review", "awaiting_approval"}:
            raise _no("not_in_review", f"{t.id} is {t.status}: approve takes a task in review "
                      "or one awaiting approval")  # fmt: skip

    def _check_reject(self, a: BoardAction) -> None:
        self._lead_only(a.actor, "reject")
        t = self.task(a.task_id)
        if t.status != "in_review":
            raise _no("not_in_review", f"{t.id} is {t.status}: only work in review is rejected")

    def _check_cancel(self, a: BoardAction) -> None:
        t = self.task(a.task_id)
        if not self._leads(a.actor) and a.actor != t.created_by:
            raise _no("not_lead", "only the lead or the task's creator cancels it")
        if t.status in ENDED:
            raise _no("task_ended", f"{t.id} has already ended ({t.status})")

    def _check_assign(self, a: BoardAction) -> None:
        self._lead_only(a.actor, "assign")
        t = self.task(a.task_id)
        if t.status not in {"pending", "blocked", "awaiting_approval"}:
            raise _no("task_claimed", f"{t.id} is {t.status}; it can no longer be assigned")
        if a.assignee is None or a.assignee not in self.members:
            raise _no("not_a_member", f"assignee {a.assignee} is not in this team")

    def _check_update(self, a: BoardAction) -> None:
        t = self.task(a.task_id)
        if not self._leads(a.actor) and a.actor != t.created_by:
            raise _no("not_lead", "only the lead or the task's creator updates it")
        if a.blocked_by is None:
            return
        if t.status not in {"pending", "blocked", "awaiting_approval"}:
            raise _no("task_claimed", f"{t.id} is {t.status}; its dependencies are fixed")
        missing = [b for b in a.blocked_by if b not in self.tasks]
        if missing:
            raise _no("unknown_dependency", f"blocked_by names no task: {', '.join(missing)}")
        cycle = self._cycle(t.id, a.blocked_by)
        if cycle:
            raise _no("dependency_cycle", "blocked_by would make a cycle: " + " → ".join(cycle))

    def _check_answer(self, a: BoardAction) -> None:
        self._lead_only(a.actor, "answer")
        q = self.questions.get(a.question_id)
        if q is None:
            raise _no("question_not_found", f"no question {a.question_id!r}")
        if q.state != "waiting":
            raise _no("question_closed", f"{q.id} is {q.state}")

    def _check_ask_user(self, a: BoardAction) -> None:
        if a.task_id:
            self.task(a.task_id)
        if not a.question.strip():
            raise _no("invalid_question", "ask_user needs a question")

    def _cycle(self, task_id: str, blockers: list[str]) -> list[str]:
        """The path back to ``task_id`` through ``blockers``' own blockers, if any."""
        stack = [(b, [task_id, b]) for b in blockers]
        seen: set[str] = set()
        while stack:
            current, path = stack.pop()
            if current == task_id:
                return path
            if current in seen:
                continue
            seen.add(current)
            stack.extend((b, [*path, b]) for b in self.tasks[current].blocked_by)
        return []

    # -- moves -------------------------------------------------------------------------

    def apply(self, a: BoardAction, seq: int) -> tuple[Any, list[BoardEvent]]:
        """Check, then make the move; the events are numbered from ``seq``."""
        self.check(a)
        self._events: list[BoardEvent] = []
        self._seq = seq
        result = getattr(self, f"_do_{a.action}")(a)
        return result, self._events

    def _event(self, task_id: str, a: BoardAction, notices: list[Notice] | None = None,
               **detail: Any) -> None:  # fmt: skip
        self._events.append(BoardEvent(seq=self._seq + len(self._events), task_id=task_id,
                                       action=a.action, actor=a.actor, detail=detail,
                                       notices=notices or []))  # fmt: skip

    def _to_lead(self, task: Task, text: str) -> Notice:
        return Notice(to="lead", text=f"teammate: {text}", session=task.notify_session)

    def _do_create(self, a: BoardAction) -> list[dict[str, Any]]:
        new = a.tasks or [
            NewTask(
                title=a.title,
                description=a.description or "",
                blocked_by=a.blocked_by or [],
                require_approval=a.require_approval,
                require_review=a.require_review,
                assignee=a.assignee,
            )
        ]
        made = []
        for spec in new:
            task = Task(id=f"T{self.next_id}", created_by=a.actor,
                        notify_session=a.actor_session if self._leads(a.actor) else None,
                        **spec.model_dump())  # fmt: skip
            self.next_id += 1
            self._settle(task)
            self.tasks[task.id] = task
            notices = []
            if task.assignee is not None:
                notices.append(Notice(to=task.assignee, text=f"lead: {task.id} is yours: "
                                      f"{task.title}"))  # fmt: skip
            self._event(task.id, a, notices, task=task.model_dump())
            made.append(task.model_dump())
        return made

    def _settle(self, task: Task) -> None:
        """The status of a task nobody has claimed yet, from its approvals and blockers."""
        if task.require_approval and not task.approved:
            task.status = "awaiting_approval"
        elif any(self.tasks[b].status != "completed" for b in task.blocked_by):
            task.status = "blocked"
        else:
            task.status = "pending"

    def _do_claim(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        t.status, t.owner = "in_progress", a.actor
        self._event(t.id, a)
        return t.model_dump()

    def _do_complete(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        t.result = a.result
        who = self.members.get(a.actor, a.actor)
        if a.failed:
            t.status = "failed"
            self._event(t.id, a, [self._to_lead(t, f"{a.actor} ({who}) failed {t.id}: "
                                                f"{a.result}")], result=a.result)  # fmt: skip
            self._tell_stuck(t, a)
        elif t.require_review or a.action == "review":
            t.status = "in_review"
            self._event(t.id, a, [self._to_lead(t, f"{a.actor} ({who}) finished {t.id}, "
                                                f"waiting for your review: {a.result}")],
                        result=a.result)  # fmt: skip
        else:
            self._complete(t, a, [self._to_lead(t, f"{a.actor} ({who}) completed {t.id}: "
                                                f"{a.result}")])  # fmt: skip
        return t.model_dump()

    _do_review = _do_complete

    def _complete(self, t: Task, a: BoardAction, notices: list[Notice]) -> None:
        t.status = "completed"
        self._event(t.id, a, notices, result=t.result)
        for other in self.tasks.values():
            if other.status == "blocked" and t.id in other.blocked_by:
                self._settle(other)
                if other.status != "blocked":
                    self._event(other.id, a.model_copy(update={"action": "unblocked"}),
                                status=other.status, by=t.id)  # fmt: skip

    def _tell_stuck(self, t: Task, a: BoardAction) -> None:
        """A failed or cancelled blocker unblocks nothing: say which tasks it holds."""
        stuck = [o.id for o in self.tasks.values()
                 if o.status == "blocked" and t.id in o.blocked_by]  # fmt: skip
        if stuck:
            text = f"{', '.join(stuck)} stay blocked: their blocker {t.id} {t.status}"
            self._event(t.id, a.model_copy(update={"action": "blocked_by_ended"}),
                        [self._to_lead(t, text)], tasks=stuck)  # fmt: skip

    def _do_approve(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        if t.status == "awaiting_approval":
            t.approved = True
            self._settle(t)
            self._event(t.id, a, status=t.status)
        else:
            self._complete(t, a, [])
        return t.model_dump()

    def _do_reject(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        t.status, t.feedback = "in_progress", a.feedback
        owner = t.owner or ""
        self._event(t.id, a, [Notice(to=owner, text=f"lead: {t.id} sent back: {a.feedback}")],
                    feedback=a.feedback)  # fmt: skip
        return t.model_dump()

    def _do_cancel(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        t.status = "cancelled"
        self._event(t.id, a)
        self._tell_stuck(t, a)
        return t.model_dump()

    def _do_assign(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        t.assignee = a.assignee
        self._event(t.id, a, [Notice(to=a.assignee or "", text=f"lead: {t.id} is yours: "
                                     f"{t.title}")], assignee=a.assignee)  # fmt: skip
        return t.model_dump()

    def _do_comment(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        notices = []
        if a.kind == "blocker":
            notices.append(self._to_lead(t, f"{a.actor} reports a blocker on {t.id}: {a.text}"))
        self._event(t.id, a, notices, kind=a.kind, text=a.text)
        return {"task_id": t.id, "kind": a.kind, "text": a.text}

    def _do_progress(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        t.progress = a.percent
        self._event(t.id, a, percent=a.percent, text=a.text)
        return t.model_dump()

    def _do_attach(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        self._event(t.id, a, name=a.name, content=a.content)
        return {"task_id": t.id, "name": a.name, "bytes": len(a.content.encode())}

    def _do_update(self, a: BoardAction) -> dict[str, Any]:
        t = self.task(a.task_id)
        changes: dict[str, Any] = {}
        if a.title:
            t.title = changes["title"] = a.title
        if a.description is not None:
            t.description = changes["description"] = a.description
        if a.blocked_by is not None:
            t.blocked_by = changes["blocked_by"] = list(a.blocked_by)
            self._settle(t)
            changes["status"] = t.status
        self._event(t.id, a, **changes)
        return t.model_dump()

    def _do_ask_user(self, a: BoardAction) -> dict[str, Any]:
        qid = f"Q{len(self.questions) + 1}"
        task = self.tasks.get(a.task_id)
        session = task.notify_session if task else None
        q = Question(id=qid, task_id=a.task_id, asker=a.actor, question=a.question,
                     session=a.actor_session)  # fmt: skip
        self.questions[qid] = q
        text = f"teammate: {a.actor} asks the user ({qid}): {a.question}"
        self._event(a.task_id, a, [Notice(to="lead", text=text, session=session)],
                    question_id=qid, question=a.question)  # fmt: skip
        return q.model_dump()

    def _do_answer(self, a: BoardAction) -> dict[str, Any]:
        q = self.questions[a.question_id]
        q.state, q.answer = "answered", a.answer
        self._event(q.task_id, a, [Notice(to=q.asker, text=f"user answered {q.id}: {a.answer}",
                                          session=q.session)], question_id=q.id)  # fmt: skip
        return q.model_dump()

    def expire(self, question_id: str, seq: int) -> list[BoardEvent]:
        """A question nobody answered in time: ``timeout``, and the asker is told."""
        q = self.questions[question_id]
        if q.state != "waiting":
            return []
        q.state = "timeout"
        text = f"board: nobody answered {q.id} in time"
        note = Notice(to=q.asker, text=text, session=q.session)
        return [BoardEvent(seq=seq, task_id=q.task_id, action="question_timeout", actor="board",
                           detail={"question_id": q.id}, notices=[note])]  # fmt: skip


def _claim_code(t: Task) -> str:
    return {"in_progress": "task_claimed", "in_review": "task_claimed", "blocked": "task_blocked",
            "awaiting_approval": "awaiting_approval"}.get(t.status, "task_ended")  # fmt: skip
