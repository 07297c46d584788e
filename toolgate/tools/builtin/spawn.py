"""spawn and delegate (spec §4, §13): the tools that start child agent runs.

Their actions start and cancel child workflows, so the agent loop runs them itself;
these registrations give the policy engine and the LLM their names and schemas.
Called outside an agent run (e.g. POST /v1/tools/spawn/invoke) they say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from .._model import Capability, ToolContext, ToolResult
from .._tool import ToolSpec


class SpawnArgs(BaseModel):
    action: Literal["spawn", "run", "list", "cancel", "steer"] = "spawn"
    """spawn: start and return at once; run: start and wait; list; cancel; steer."""
    task: str = Field(default="", max_length=100_000)
    label: str = Field(default="", max_length=200)
    id: str = Field(default="", max_length=300)
    """cancel: an id, ``all`` or ``last``; steer: an id."""
    timeout_seconds: float = Field(default=600, gt=0, le=86_400)
    """run: how long to wait; the subagent goes on (and reports later) after that."""
    include_archived: bool = False


class DelegateArgs(BaseModel):
    agent: str = Field(min_length=1, max_length=200)
    """The other agent's id or name; an agent link must allow it."""
    task: str = Field(default="", max_length=100_000)
    mode: Literal["sync", "async"] = "sync"
    """sync: wait for the answer (up to the timeout); async: its answer comes later."""
    timeout_seconds: float = Field(default=600, gt=0, le=86_400)


class _InsideARun:
    spec: ToolSpec

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:  # noqa: ARG002
        return ToolResult.error(
            f"{self.spec.name}_outside_a_run",
            f"{self.spec.name} works inside an agent run (it starts child workflows)",
        )


class Spawn(_InsideARun):
    spec = ToolSpec(
        name="spawn",
        description=(
            "Run subagents: spawn (async), run (wait for the result), list, cancel "
            "(id, 'all', 'last'), steer (replace a running subagent's task)."
        ),
        parameters=SpawnArgs.model_json_schema(),
        capability=Capability.ASYNC,
        groups=frozenset({"sessions"}),
    )


class Delegate(_InsideARun):
    spec = ToolSpec(
        name="delegate",
        description=(
            "Give a task to another agent linked to this one. sync waits for its answer; "
            "async returns at once and the answer arrives as a message later."
        ),
        parameters=DelegateArgs.model_json_schema(),
        capability=Capability.ASYNC,
    )
