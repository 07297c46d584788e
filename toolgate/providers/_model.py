"""What goes to an LLM and what comes back, independent of the vendor's wire format.

These are recorded in workflow history (the agent loop passes them between
activities): they hold conversation text and tool calls, never API keys.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ToolCallOut(BaseModel):
    """A tool call the LLM asked for."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str = ""
    """As the provider sent them (OpenAI sends a JSON string)."""
    parse_error: str | None = None
    """Set when ``raw_arguments`` is not a JSON object: the loop answers the LLM with it."""
    blocked: bool = False
    """A PreToolUse hook blocked this call; ``parse_error`` holds the reason."""


class Message(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCallOut] = Field(default_factory=list)
    """assistant messages: the calls it made."""
    tool_call_id: str | None = None
    """tool messages: which call this result answers."""
    is_error: bool = False


class ToolSchema(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any]


class LLMRequest(BaseModel):
    model: str
    messages: list[Message]
    tools: list[ToolSchema] = Field(default_factory=list)
    max_tokens: int = 4096
    temperature: float | None = None


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0


class LLMResponse(BaseModel):
    text: str = ""
    tool_calls: list[ToolCallOut] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    stop_reason: str = ""
