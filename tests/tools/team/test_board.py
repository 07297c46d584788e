"""The board's rules, fast: legal and illegal moves, unblocking, cycles."""

from __future__ import annotations

from typing import Any

import pytest

from toolgate.tools.team import Board, BoardAction, BoardRefusal

LEAD, ANA, BEN = "lead", "ana", "ben"


def _board() -> Board:
    return Board(LEAD, {LEAD: "lead", ANA: "writer", BEN: "tester"})


def _do(board: Board, actor: str, action: str, **kw: Any) -> Any:
    return board.apply(BoardAction(action=action, actor=actor, **kw), seq=1)[0]  # type: ignore[arg-type]


def _refused(board: Board, actor: str, action: str, **kw: Any) -> str:
    with pytest.raises(BoardRefusal) as caught:
        board.check(BoardAction(action=action, actor=actor, **kw))  # type: ignore[arg-type]
    return caught.value.code


def _abc(board: Board, **c: Any) -> None:
    _do(board, LEAD, "create", tasks=[{"title": "A"}, {"title": "B"},
                                      {"title": "C", "blocked_by": ["T1", "T2"], **c}])  # fmt: skip


def test_completing_every_blocker_unblocks_in_the_same_move() -> None:
    board = _board()
    _abc(board)
    assert [t.status for t in board.tasks.values()] == ["pending", "pending", "blocked"]
    assert _refused(board, ANA, "claim", task_id="T3") == "task_blocked"
    _do(board, ANA, "claim", task_id="T1")
    _do(board, BEN, "claim", task_id="T2")
    _do(board, ANA, "complete", task_id="T1", result="a")
    assert board.tasks["T3"].status == "blocked"  # B is not done yet
    _, events = board.apply(BoardAction(action="complete", actor=BEN, task_id="T2",
                                        result="b"), seq=10)  # fmt: skip
    assert board.tasks["T3"].status == "pending"
    assert [(e.task_id, e.action) for e in events] == [("T2", "complete"), ("T3", "unblocked")]
    assert events[0].notices[0].text == "teammate: ben (tester) completed T2: b"


def test_a_failed_or_cancelled_blocker_unblocks_nothing_and_the_lead_is_told() -> None:
    for end in ("failed", "cancelled"):
        board = _board()
        _abc(board)
        _do(board, ANA, "claim", task_id="T1")
        _do(board, ANA, "complete", task_id="T1", result="ok")
        if end == "failed":
            _do(board, BEN, "claim", task_id="T2")
            _, events = board.apply(BoardAction(action="complete", actor=BEN, task_id="T2",
                                                result="broke", failed=True), seq=1)  # fmt: skip
        else:
            _, events = board.apply(BoardAction(action="cancel", actor=LEAD, task_id="T2"), 1)
        assert board.tasks["T3"].status == "blocked"
        told = [n.text for e in events for n in e.notices if n.to == "lead"]
        assert told[-1] == f"teammate: T3 stay blocked: their blocker T2 {end}"


def test_only_the_owner_completes_and_only_one_claim_wins() -> None:
    board = _board()
    _abc(board)
    _do(board, ANA, "claim", task_id="T1")
    assert _refused(board, BEN, "claim", task_id="T1") == "task_claimed"
    assert _refused(board, BEN, "complete", task_id="T1") == "not_owner"
    assert _refused(board, ANA, "complete", task_id="T2") == "not_in_progress"
    assert _refused(board, "stranger", "claim", task_id="T2") == "not_a_member"
    assert _refused(board, ANA, "claim", task_id="T9") == "task_not_found"


def test_review_approve_and_reject_back_to_the_owner() -> None:
    board = _board()
    _do(board, LEAD, "create", title="doc", require_review=True)
    assert _refused(board, LEAD, "approve", task_id="T1") == "not_in_review"  # no review yet
    _do(board, ANA, "claim", task_id="T1")
    _do(board, ANA, "complete", task_id="T1", result="draft")
    assert board.tasks["T1"].status == "in_review"
    assert _refused(board, ANA, "approve", task_id="T1") == "not_lead"
    _, events = board.apply(BoardAction(action="reject", actor=LEAD, task_id="T1",
                                        feedback="shorter"), seq=1)  # fmt: skip
    assert (board.tasks["T1"].status, board.tasks["T1"].feedback) == ("in_progress", "shorter")
    assert events[0].notices[0].to == ANA
    _do(board, ANA, "review", task_id="T1", result="short")
    _do(board, LEAD, "approve", task_id="T1")
    assert board.tasks["T1"].status == "completed"


def test_require_approval_keeps_a_task_unclaimable_until_approved() -> None:
    board = _board()
    _do(board, LEAD, "create", title="deploy", require_approval=True)
    assert _refused(board, ANA, "claim", task_id="T1") == "awaiting_approval"
    _do(board, "user:alice", "approve", task_id="T1")  # a person acts as the lead
    _do(board, ANA, "claim", task_id="T1")


def test_cycles_and_missing_dependencies_are_refused() -> None:
    board = _board()
    _abc(board)
    assert _refused(board, LEAD, "update", task_id="T1", blocked_by=["T3"]) == "dependency_cycle"
    assert _refused(board, LEAD, "update", task_id="T1", blocked_by=["T1"]) == "dependency_cycle"
    assert _refused(board, LEAD, "create", title="x", blocked_by=["T7"]) == "unknown_dependency"
    assert _refused(board, LEAD, "update", task_id="T2", blocked_by=["T8"]) == "unknown_dependency"
    _do(board, LEAD, "update", task_id="T2", blocked_by=["T1"])  # fine: no cycle
    assert board.tasks["T2"].status == "blocked"


def test_questions_are_answered_once_or_time_out() -> None:
    board = _board()
    _abc(board)
    q = _do(board, ANA, "ask_user", task_id="T1", question="which format?")
    assert _refused(board, ANA, "answer", question_id=q["id"], answer="x") == "not_lead"
    _do(board, "user:bob", "answer", question_id=q["id"], answer="markdown")
    assert _refused(board, LEAD, "answer", question_id=q["id"], answer="y") == "question_closed"
    late = _do(board, BEN, "ask_user", question="anyone?")
    events = board.expire(late["id"], seq=5)
    assert board.questions[late["id"]].state == "timeout" and events[0].notices[0].to == BEN
