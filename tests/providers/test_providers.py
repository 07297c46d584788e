"""The HTTP providers against a local server speaking their wire formats."""

from __future__ import annotations

import httpx
import pytest

from toolgate.providers import (
    Anthropic,
    LLMRequest,
    Message,
    OpenAICompatible,
    ProviderRateLimited,
    ProviderRejected,
    ProviderResponseInvalid,
    ProviderUnavailable,
    Script,
    Scripted,
    ToolCallOut,
    ToolSchema,
)

from ..wire_server import WireServer

PATH_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}
TOOLS = [ToolSchema(name="read_file", description="Read a file", parameters=PATH_SCHEMA)]
CONVERSATION = [
    Message(role="system", content="You are terse."),
    Message(role="user", content="What is in a.txt?"),
    Message(role="assistant", content="", tool_calls=[
        ToolCallOut(id="c1", name="read_file", arguments={"path": "a.txt"})]),
    Message(role="tool", tool_call_id="c1", content="hello"),
]  # fmt: skip


def _request(messages: list[Message] = CONVERSATION) -> LLMRequest:
    return LLMRequest(model="m-1", messages=messages, tools=TOOLS)


def _openai_reply(message: dict, finish: str = "tool_calls") -> dict:
    return {"id": "x", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3}}  # fmt: skip


async def test_openai_tool_calls_and_the_request_it_sends(
    wire_server: WireServer, http: httpx.AsyncClient
) -> None:
    wire_server.reply(_openai_reply({"content": None, "tool_calls": [
        {"id": "c2", "type": "function",
         "function": {"name": "read_file", "arguments": "{\"path\": \"b.txt\"}"}}]}))  # fmt: skip
    provider = OpenAICompatible(wire_server.url + "/v1", "sk-test", http)
    response = await provider.complete(_request())
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("c2", "read_file", {"path": "b.txt"})
    ]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 3)
    sent = wire_server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == "Bearer sk-test"
    body = sent["json"]
    assert body["stream"] is False and body["tool_choice"] == "auto"
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool"]
    assert body["messages"][2]["tool_calls"][0]["function"]["arguments"] == '{"path": "a.txt"}'
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "hello"}


async def test_openai_arguments_that_are_not_json_become_a_parse_error(
    wire_server: WireServer, http: httpx.AsyncClient
) -> None:
    wire_server.reply(_openai_reply({"content": "", "tool_calls": [
        {"id": "c3", "type": "function", "function": {"name": "read_file",
                                                      "arguments": "{path: b.txt"}}]}))  # fmt: skip
    response = await OpenAICompatible(wire_server.url, "k", http).complete(_request())
    call = response.tool_calls[0]
    assert call.parse_error and "not valid JSON" in call.parse_error
    assert call.raw_arguments == "{path: b.txt" and call.arguments == {}


async def test_openai_final_text(wire_server: WireServer, http: httpx.AsyncClient) -> None:
    wire_server.reply(_openai_reply({"content": "It says hello."}, "stop"))
    response = await OpenAICompatible(wire_server.url, "k", http).complete(_request())
    assert (response.text, response.tool_calls, response.stop_reason) == (
        "It says hello.", [], "stop")  # fmt: skip


@pytest.mark.parametrize("make", [OpenAICompatible, Anthropic])
async def test_http_failures_map_to_what_a_retry_can_do(
    wire_server: WireServer, http: httpx.AsyncClient, make: type
) -> None:
    provider = make(wire_server.url, "k", http)
    wire_server.reply({"error": "slow down"}, 429, {"Retry-After": "7"})
    with pytest.raises(ProviderRateLimited) as limited:
        await provider.complete(_request())
    assert limited.value.retry_after == 7.0 and limited.value.retryable
    wire_server.reply({"error": "boom"}, 503)
    with pytest.raises(ProviderUnavailable):
        await provider.complete(_request())
    wire_server.reply({"error": {"message": "bad model"}}, 400)
    with pytest.raises(ProviderRejected) as rejected:
        await provider.complete(_request())
    assert not rejected.value.retryable and "bad model" in rejected.value.message
    wire_server.reply("<html>gateway</html>", 200)
    with pytest.raises(ProviderResponseInvalid, match="not JSON"):
        await provider.complete(_request())
    wire_server.reply({"unexpected": True}, 200)
    with pytest.raises(ProviderResponseInvalid, match="shape"):
        await provider.complete(_request())


async def test_an_unreachable_provider_is_retryable(http: httpx.AsyncClient) -> None:
    from toolgate.devstack import free_port

    provider = OpenAICompatible(f"http://127.0.0.1:{free_port()}", "k", http)
    with pytest.raises(ProviderUnavailable, match="cannot reach"):
        await provider.complete(_request())


async def test_anthropic_messages_tool_use(
    wire_server: WireServer, http: httpx.AsyncClient
) -> None:
    wire_server.reply({"id": "msg", "type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "tu1", "name": "read_file", "input": {"path": "b.txt"}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 20, "output_tokens": 5}})  # fmt: skip
    provider = Anthropic(wire_server.url, "ak-test", http)
    response = await provider.complete(_request())
    assert response.text == "Reading." and response.stop_reason == "tool_use"
    assert [(c.id, c.arguments) for c in response.tool_calls] == [("tu1", {"path": "b.txt"})]
    sent = wire_server.requests[0]
    assert sent["path"] == "/v1/messages"
    assert sent["headers"]["x-api-key"] == "ak-test"
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    body = sent["json"]
    assert (
        body["system"] == "You are terse." and body["tools"][0]["input_schema"]["type"] == "object"
    )
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    used = {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "a.txt"}}
    assert body["messages"][1]["content"][0] == used
    assert body["messages"][2]["content"][0]["type"] == "tool_result"


async def test_anthropic_tool_input_that_is_not_an_object(
    wire_server: WireServer, http: httpx.AsyncClient
) -> None:
    wire_server.reply({"content": [{"type": "tool_use", "id": "t", "name": "read_file",
                                    "input": "b.txt"}], "stop_reason": "tool_use"})  # fmt: skip
    response = await Anthropic(wire_server.url, "k", http).complete(_request())
    assert response.tool_calls[0].parse_error == "input must be a JSON object"


async def test_scripted_answers_by_turn_deterministically() -> None:
    script = Script.model_validate({"turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}},
                        {"name": "list_files"}]},
        {"text": "Done."}]})  # fmt: skip
    provider = Scripted(script)
    first = await provider.complete(_request(CONVERSATION[:2]))
    assert [(c.id, c.name) for c in first.tool_calls] == [
        ("call_0_0", "read_file"), ("call_0_1", "list_files")]  # fmt: skip
    again = await provider.complete(_request(CONVERSATION[:2]))
    assert again == first
    last = await provider.complete(_request())
    assert (last.text, last.tool_calls, last.stop_reason) == ("Done.", [], "end_turn")
    beyond = await provider.complete(_request([*CONVERSATION, Message(role="assistant")]))
    assert beyond.text == "Done." and beyond.tool_calls == []
