"""group:team — team_tasks, the task board of the agent's team (spec §11).

The board lives in a TeamBoard workflow; the tool reaches it through the
:class:`TeamBoards` port (supplied by the worker). The caller is always the calling
agent: the LLM cannot say who it is. An agent in several teams names one (``team``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from .._model import Capability, ToolContext, ToolResult
from .._tool import ToolSpec
from ..errors import ToolRefusal
from ..team import BoardAction


class TeamBoards(Protocol):
    async def teams_of(self, ctx: ToolContext) -> list[tuple[str, str]]:
        """(team id, name) of the teams the calling agent belongs to."""
        ...

    async def act(self, ctx: ToolContext, team_id: str, action: BoardAction) -> Any:
        """A change (an Update of the board); raises BoardRefusal when illegal."""
        ...

    async def read(self, ctx: ToolContext, team_id: str, action: BoardAction) -> Any: ...


def _parameters() -> dict[str, Any]:
    schema = BoardAction.model_json_schema()
    for own in ("actor", "actor_session"):
        schema["properties"].pop(own)
    schema["properties"]["team"] = {"type": "string", "maxLength": 200,
                                    "description": "team id or name (when in several)"}  # fmt: skip
    schema["additionalProperties"] = False
    return schema


class TeamTasks:
    spec = ToolSpec(
        name="team_tasks",
        description=(
            "Your team's task board: create (with blocked_by, require_approval, "
            "require_review, or tasks=[...]), list, get, claim, complete (failed=true if it "
            "failed), cancel, assign, review, approve, reject, comment (note|blocker), "
            "progress, attach, ask_user, answer, search, update."
        ),
        parameters=_parameters(),
        capability=Capability.MUTATING,
        groups=frozenset({"team"}),
        timeout_seconds=60,
    )

    def __init__(self, boards: TeamBoards) -> None:
        self._boards = boards

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        fields = {k: v for k, v in args.items() if k != "team"}
        action = BoardAction.model_validate(
            {**fields, "actor": ctx.agent_id, "actor_session": ctx.session_key or None}
        )
        team_id = await self._team(ctx, str(args.get("team", "")))
        if action.action in {"list", "get", "search"}:
            found = await self._boards.read(ctx, team_id, action)
        else:
            found = await self._boards.act(ctx, team_id, action)
        return ToolResult.ok(json.dumps(found, default=str))

    async def _team(self, ctx: ToolContext, wanted: str) -> str:
        teams = await self._boards.teams_of(ctx)
        if wanted:
            teams = [(i, n) for i, n in teams if wanted in (i, n)]
        if not teams:
            raise ToolRefusal("this agent is in no team" + (f" named {wanted!r}" if wanted else ""),
                              code="not_in_a_team")  # fmt: skip
        if len(teams) > 1:
            names = ", ".join(n for _, n in teams)
            raise ToolRefusal(f"this agent is in several teams ({names}); say which with "
                              "team", code="team_ambiguous")  # fmt: skip
        return teams[0][0]
