"""``scripted``: a real provider whose answers are written down in advance.

The script is a list of turns; turn N answers the conversation after the N-th
assistant message, so the answer depends only on the conversation (deterministic
across retries and workers). A turn calls tools, or answers with text and ends the
run. After the last turn, the provider answers with the last turn's text.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ._model import LLMRequest, LLMResponse, ToolCallOut, Usage


class ScriptedCall(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ScriptedTurn(BaseModel):
    tool_calls: list[ScriptedCall] = Field(default_factory=list)
    text: str = ""


class Script(BaseModel):
    turns: list[ScriptedTurn] = Field(min_length=1)


class Scripted:
    name = "scripted"

    def __init__(self, script: Script) -> None:
        self._script = script

    async def complete(self, request: LLMRequest) -> LLMResponse:
        done = sum(1 for m in request.messages if m.role == "assistant")
        turn = self._script.turns[min(done, len(self._script.turns) - 1)]
        if done >= len(self._script.turns):
            turn = ScriptedTurn(text=turn.text or "(the script has no more turns)")
        calls = [
            ToolCallOut(id=f"call_{done}_{i}", name=c.name, arguments=c.arguments)
            for i, c in enumerate(turn.tool_calls)
        ]
        words = sum(len(m.content.split()) for m in request.messages)
        return LLMResponse(
            text=turn.text,
            tool_calls=calls,
            usage=Usage(input_tokens=words, output_tokens=len(turn.text.split())),
            stop_reason="tool_use" if calls else "end_turn",
        )
