"""OpenAI-compatible chat completions with tool calling.

One wire format serves OpenAI, OpenRouter, vLLM, Ollama and LM Studio: set the base
URL (``.../v1``) and the key. Streaming is off: the loop needs the whole turn.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from ._errors import ProviderResponseInvalid
from ._http import post_json
from ._model import LLMRequest, LLMResponse, Message, ToolCallOut, Usage


def _message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content}
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.raw_arguments or json.dumps(c.arguments),
                },
            }
            for c in m.tool_calls
        ]
    return out


def parse_arguments(call_id: str, name: str, raw: Any) -> ToolCallOut:
    """Arguments as an object, or the parse error the LLM will be told about."""
    if isinstance(raw, dict):
        return ToolCallOut(id=call_id, name=name, arguments=raw, raw_arguments=json.dumps(raw))
    text = raw if isinstance(raw, str) else json.dumps(raw)
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        return ToolCallOut(id=call_id, name=name, raw_arguments=text,
                           parse_error=f"arguments are not valid JSON: {exc}")  # fmt: skip
    if not isinstance(value, dict):
        return ToolCallOut(id=call_id, name=name, raw_arguments=text,
                           parse_error="arguments must be a JSON object")  # fmt: skip
    return ToolCallOut(id=call_id, name=name, arguments=value, raw_arguments=text)


class OpenAICompatible:
    name = "openai"

    def __init__(self, base_url: str, api_key: str, client: httpx.AsyncClient) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._key = api_key
        self._client = client

    async def complete(self, request: LLMRequest) -> LLMResponse:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [_message(m) for m in request.messages],
            "max_tokens": request.max_tokens,
            "stream": False,
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = [
                {"type": "function", "function": t.model_dump()} for t in request.tools
            ]
            body["tool_choice"] = "auto"
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        data = await post_json(self._client, self._url, body, headers)
        try:
            choice = data["choices"][0]
            message = choice["message"]
            calls = [
                parse_arguments(c["id"], c["function"]["name"], c["function"].get("arguments", ""))
                for c in message.get("tool_calls") or []
            ]
            usage = data.get("usage") or {}
            return LLMResponse(
                text=message.get("content") or "",
                tool_calls=calls,
                usage=Usage(
                    input_tokens=int(usage.get("prompt_tokens", 0)),
                    output_tokens=int(usage.get("completion_tokens", 0)),
                ),
                stop_reason=str(choice.get("finish_reason") or ""),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ProviderResponseInvalid(
                f"{self._url} answered JSON without the chat completion shape: {exc!r}"
            ) from None
