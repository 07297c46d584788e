"""The task board's data: tasks, the actions agents and people take, the events they
leave. Pydantic, because the board's state crosses Temporal (updates, continue-as-new).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Status = Literal[
    "pending",  # claimable
    "blocked",  # waits for blocked_by tasks to complete
    "awaiting_approval",  # require_approval: the lead approves before anyone claims it
    "in_progress",  # claimed by its owner
    "in_review",  # require_review: done, waiting for the lead's approve or reject
    "completed",
    "failed",
    "cancelled",
]
ENDED = frozenset({"completed", "failed", "cancelled"})
CHANGES = frozenset({"create", "claim", "complete", "cancel", "assign", "review", "approve",
                     "reject", "comment", "progress", "attach", "ask_user", "answer",
                     "update"})  # fmt: skip
READS = frozenset({"list", "get", "search"})


class Task(BaseModel):
    id: str
    title: str
    description: str = ""
    status: Status = "pending"
    blocked_by: list[str] = Field(default_factory=list)
    require_approval: bool = False
    require_review: bool = False
    approved: bool = False
    assignee: str | None = None
    owner: str | None = None
    created_by: str = ""
    notify_session: str | None = None
    """The session of the lead's run that created it: teammates' news goes there."""
    result: str = ""
    feedback: str = ""
    progress: int = 0


class NewTask(BaseModel):
    title: str = Field(min_length=1, max_length=500)
    description: str = Field(default="", max_length=20_000)
    blocked_by: list[str] = Field(default_factory=list, max_length=100)
    require_approval: bool = False
    require_review: bool = False
    assignee: str | None = None


class BoardAction(BaseModel):
    """One ``team_tasks`` call (the tool's arguments) and who makes it."""

    action: Literal["create", "list", "get", "claim", "complete", "cancel", "assign", "review",
                    "approve", "reject", "comment", "progress", "attach", "ask_user",
                    "answer", "search", "update"]  # fmt: skip
    task_id: str = Field(default="", max_length=100)
    title: str = Field(default="", max_length=500)
    description: str | None = Field(default=None, max_length=20_000)
    blocked_by: list[str] | None = Field(default=None, max_length=100)
    require_approval: bool = False
    require_review: bool = False
    tasks: list[NewTask] = Field(default_factory=list, max_length=500)
    """create: several tasks at once (ids in order)."""
    assignee: str | None = Field(default=None, max_length=200)
    result: str = Field(default="", max_length=100_000)
    failed: bool = False
    """complete: the work failed (dependents stay blocked; the lead is told)."""
    feedback: str = Field(default="", max_length=20_000)
    text: str = Field(default="", max_length=20_000)
    kind: Literal["note", "blocker"] = "note"
    percent: int = Field(default=0, ge=0, le=100)
    name: str = Field(default="", max_length=500)
    content: str = Field(default="", max_length=200_000)
    question: str = Field(default="", max_length=20_000)
    question_id: str = Field(default="", max_length=100)
    answer: str = Field(default="", max_length=20_000)
    timeout_minutes: int = Field(default=60, ge=1, le=7 * 24 * 60)
    status: str | None = None
    """list: only tasks in this status."""
    query: str = Field(default="", max_length=500)
    actor: str = ""
    """Set by the board's caller, never by the LLM: an agent id, or ``user:<id>``."""
    actor_session: str | None = None


class Notice(BaseModel):
    """A message the board sends: ``to`` is ``lead`` or an agent id."""

    to: str
    text: str
    session: str | None = None


class BoardEvent(BaseModel):
    seq: int
    task_id: str
    action: str
    actor: str
    detail: dict[str, Any] = Field(default_factory=dict)
    notices: list[Notice] = Field(default_factory=list)


class Question(BaseModel):
    id: str
    task_id: str
    asker: str
    question: str
    state: Literal["waiting", "answered", "timeout"] = "waiting"
    answer: str = ""
    session: str | None = None
