"""Teams (spec §11): the task board's rules and the ``team_tasks`` tool."""

from ._board import Board, BoardRefusal
from ._model import (
    CHANGES,
    ENDED,
    READS,
    BoardAction,
    BoardEvent,
    NewTask,
    Notice,
    Question,
    Task,
)
from ._team_md import team_md, with_team

__all__ = [
    "CHANGES",
    "ENDED",
    "READS",
    "Board",
    "BoardAction",
    "BoardEvent",
    "BoardRefusal",
    "NewTask",
    "Notice",
    "Question",
    "Task",
    "team_md",
    "with_team",
]
