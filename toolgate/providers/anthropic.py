"""Anthropic Messages API with tool use.

The system prompt travels apart; tool calls are ``tool_use`` blocks of the assistant;
tool results go back as ``tool_result`` blocks of a user message (consecutive tool
results share one user message, as the API requires).
"""

from __future__ import annotations

from typing import Any

import httpx

from ._errors import ProviderResponseInvalid
from ._http import post_json
from ._model import LLMRequest, LLMResponse, Message, ToolCallOut, Usage

API_VERSION = "2023-06-01"


def _messages(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.tool_call_id or "",
                     "content": m.content, "is_error": m.is_error}  # fmt: skip
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        elif m.role == "assistant":
            blocks: list[dict[str, Any]] = (
                [{"type": "text", "text": m.content}] if m.content else []
            )
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                       for c in m.tool_calls]  # fmt: skip
            out.append({"role": "assistant", "content": blocks})
        else:
            out.append({"role": "user", "content": m.content})
    return system, out


def _tool_use(block: dict[str, Any]) -> ToolCallOut:
    raw = block.get("input")
    if isinstance(raw, dict):
        return ToolCallOut(id=block["id"], name=block["name"], arguments=raw)
    return ToolCallOut(
        id=block["id"],
        name=block["name"],
        raw_arguments=str(raw),
        parse_error="input must be a JSON object",
    )


class Anthropic:
    name = "anthropic"

    def __init__(self, base_url: str, api_key: str, client: httpx.AsyncClient) -> None:
        self._url = base_url.rstrip("/") + "/v1/messages"
        self._key = api_key
        self._client = client

    async def complete(self, request: LLMRequest) -> LLMResponse:
        system, messages = _messages(request.messages)
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": messages,
        }
        if system:
            body["system"] = system
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in request.tools
            ]
        headers = {"x-api-key": self._key, "anthropic-version": API_VERSION}
        data = await post_json(self._client, self._url, body, headers)
        try:
            text, calls = [], []
            for block in data["content"]:
                if block["type"] == "text":
                    text.append(block["text"])
                elif block["type"] == "tool_use":
                    calls.append(_tool_use(block))
            usage = data.get("usage") or {}
            return LLMResponse(
                text="".join(text),
                tool_calls=calls,
                usage=Usage(
                    input_tokens=int(usage.get("input_tokens", 0)),
                    output_tokens=int(usage.get("output_tokens", 0)),
                ),
                stop_reason=str(data.get("stop_reason") or ""),
            )
        except (KeyError, TypeError) as exc:
            raise ProviderResponseInvalid(
                f"{self._url} answered JSON without the messages shape: {exc!r}"
            ) from None
