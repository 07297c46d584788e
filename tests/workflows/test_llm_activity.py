"""The LLM activity against a local OpenAI-compatible server: the key from the tenant's
secrets, 429 honoured, a 4xx not retried, unparseable tool arguments answered."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.worker import Worker

from toolgate.activities.agent import AgentRef
from toolgate.services import Services
from toolgate.workflows import AgentRunWorkflow

from ..wire_server import WireServer
from .test_agent_run import _agent, _start

KEY = "sk-local-test-0123456789"


def _completion(message: dict) -> dict:
    return {"choices": [{"message": {"role": "assistant", **message},
                         "finish_reason": "stop"}], "usage": {}}  # fmt: skip


async def _openai_agent(services: Services, wire_server: WireServer) -> AgentRef:
    ref = await _agent(services, {"provider": "openai", "model": "local-model",
                                  "base_url": wire_server.url + "/v1",
                                  "api_key_secret": "local_key"})  # fmt: skip
    await services.secrets.put(ref.tenant_id, "local_key", KEY)
    return ref


async def test_rate_limits_are_waited_out_and_bad_arguments_answered(
    temporal_client: Client, services: Services, tool_worker: Worker, wire_server: WireServer
) -> None:
    ref = await _openai_agent(services, wire_server)
    wire_server.reply({"error": "slow down"}, 429, {"Retry-After": "1"})
    wire_server.reply(_completion({"content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "read_file", "arguments": '{"path": oops'}}]}))  # fmt: skip
    wire_server.reply(_completion({"content": "Sorry, my arguments were broken."}))
    handle = await _start(temporal_client, services, ref, "read something")
    status = await handle.result()
    assert (status.state, status.final_text) == ("completed", "Sorry, my arguments were broken.")
    assert len(wire_server.requests) == 3  # the 429 was retried, nothing else
    assert all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in wire_server.requests)
    tool = [m for m in await handle.query(AgentRunWorkflow.history) if m.role == "tool"][0]
    assert tool.is_error and "not valid JSON" in tool.content
    sent_back = wire_server.requests[2]["json"]["messages"][-1]
    assert sent_back["role"] == "tool" and "not valid JSON" in sent_back["content"]


async def test_a_rejected_request_is_not_retried(
    temporal_client: Client, services: Services, tool_worker: Worker, wire_server: WireServer
) -> None:
    ref = await _openai_agent(services, wire_server)
    wire_server.reply({"error": {"message": "model local-model does not exist"}}, 404)
    status = await (await _start(temporal_client, services, ref, "hi")).result()
    assert status.state == "failed" and "does not exist" in status.error
    assert len(wire_server.requests) == 1


async def test_a_garbled_body_is_retried_then_the_run_goes_on(
    temporal_client: Client, services: Services, tool_worker: Worker, wire_server: WireServer
) -> None:
    ref = await _openai_agent(services, wire_server)
    wire_server.reply("<html>bad gateway</html>", 200)
    wire_server.reply(_completion({"content": "fine now"}))
    status = await (await _start(temporal_client, services, ref, "hi")).result()
    assert (status.state, status.final_text) == ("completed", "fine now")
