"""The durable agent loop on the time-skipping server, with the scripted provider."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from toolgate.activities.agent import AgentRef
from toolgate.services import Services
from toolgate.tools import CallContext
from toolgate.worker import call_context
from toolgate.workflows import AgentRunInput, AgentRunStatus, AgentRunWorkflow, UserMessage

from ..helpers import new_tenant


async def _agent(
    services: Services, llm: dict[str, Any], policy: dict | None = None, tenant: str = "",
    name: str = "runner",
) -> AgentRef:  # fmt: skip
    """An agent with this LLM config, in a new tenant unless one is named."""
    if not tenant:
        tenant = new_tenant()
        await services.tenants.create(tenant)
    agent = await services.agents.create(tenant, name, policy or {})
    await services.agents.set_other_config(tenant, agent.id, "llm", llm)
    return AgentRef(tenant_id=tenant, agent_id=agent.id)


def _script(*turns: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"provider": "scripted", "script": {"turns": list(turns)}, **extra}


async def _start(
    client: Client, services: Services, ref: AgentRef, message: str,
    run_id: str | None = None, **kw: Any,
) -> WorkflowHandle[Any, AgentRunStatus]:  # fmt: skip
    with call_context(CallContext(tenant_id=ref.tenant_id, agent_id=ref.agent_id)):
        return await client.start_workflow(
            AgentRunWorkflow.run, AgentRunInput(agent=ref, message=message, **kw),
            id=run_id or f"run-{uuid.uuid4().hex}", task_queue=services.settings.task_queue,
        )  # fmt: skip


def _events(history: Any) -> list[tuple[str, str]]:
    """(event kind, activity type or id) of activity events, in history order."""
    scheduled: dict[int, str] = {}
    out = []
    for e in history.events:
        if e.HasField("activity_task_scheduled_event_attributes"):
            name = e.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[e.event_id] = name
            out.append(("scheduled", name))
        elif e.HasField("activity_task_completed_event_attributes"):
            out.append(
                (
                    "completed",
                    scheduled[e.activity_task_completed_event_attributes.scheduled_event_id],
                )
            )
    return out


async def test_a_run_calls_tools_and_ends_with_the_final_answer(
    temporal_client: Client, services: Services, tool_worker: Worker
) -> None:
    ref = await _agent(services, _script(
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "hi"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}},
                        {"name": "list_files", "arguments": {}}]},
        {"text": "a.txt says hi"}))  # fmt: skip
    handle = await _start(temporal_client, services, ref, "what is in a.txt?")
    status = await handle.result()
    assert (status.state, status.final_text, status.iterations) == ("completed", "a.txt says hi", 3)
    history = await handle.query(AgentRunWorkflow.history)
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant", "tool", "tool",
                                         "assistant"]  # fmt: skip
    assert history[4].content == "hi" and history[4].tool_call_id == "call_1_0"
    assert history[5].tool_call_id == "call_1_1"  # the LLM's order, whatever finished first
    events = _events(await handle.fetch_history())
    tools = [e for e in events if e[1] not in {"AgentTurnSetup", "LLMCall"}]
    # write_file (mutating) ran alone; the two read-only calls of turn 2 were both
    # scheduled before either completed.
    assert tools[:2] == [("scheduled", "write_file"), ("completed", "write_file")]
    assert tools[2:4] == [("scheduled", "read_file"), ("scheduled", "list_files")]


async def test_bad_tool_calls_are_answered_and_the_run_goes_on(
    temporal_client: Client, services: Services, tool_worker: Worker
) -> None:
    ref = await _agent(
        services,
        _script({"tool_calls": [{"name": "telepathy", "arguments": {}},
                                {"name": "write_file", "arguments": {"path": "x", "content": "y"}},
                                {"name": "read_file", "arguments": {"file": "x"}}]},
                {"text": "I could not."}),
        policy={"deny": ["write_file"]},
    )  # fmt: skip
    handle = await _start(temporal_client, services, ref, "try things")
    status = await handle.result()
    assert (status.state, status.final_text) == ("completed", "I could not.")
    results = [m for m in await handle.query(AgentRunWorkflow.history) if m.role == "tool"]
    assert all(m.is_error for m in results)
    assert "unknown tool 'telepathy'" in results[0].content
    assert "not allowed" in results[1].content
    assert "do not match its schema" in results[2].content


async def test_an_llm_that_never_stops_ends_at_max_iterations(
    temporal_client: Client, services: Services, tool_worker: Worker
) -> None:
    turns = [{"tool_calls": [{"name": "list_files"}]}] * 50
    ref = await _agent(services, _script(*turns, max_iterations=3))
    status = await (await _start(temporal_client, services, ref, "loop")).result()
    assert (status.state, status.iterations) == ("max_iterations", 3)
    assert "3 iterations" in status.final_text


async def test_a_missing_provider_key_is_a_clear_error_before_any_call(
    temporal_client: Client, services: Services, tool_worker: Worker
) -> None:
    ref = await _agent(services, {"provider": "openai", "model": "gpt-x",
                                  "api_key_secret": "openai_key"})  # fmt: skip
    status = await (await _start(temporal_client, services, ref, "hello")).result()
    assert status.state == "failed"
    assert "secret 'openai_key' does not exist" in status.error


async def test_a_user_message_continues_the_run(
    temporal_client: Client, services: Services, tool_worker: Worker
) -> None:
    script = _script({"tool_calls": [{"name": "list_files"}]}, {"text": "first answer"},
                     {"text": "second answer"})  # fmt: skip
    ref = await _agent(services, script)
    handle = await _start(temporal_client, services, ref, "one")
    await handle.signal(AgentRunWorkflow.user_message, UserMessage(text="two"))
    status = await handle.result()
    assert (status.state, status.final_text) == ("completed", "second answer")
    history = await handle.query(AgentRunWorkflow.history)
    assert [m.content for m in history if m.role == "user"] == ["one", "two"]


async def test_cancel_stops_the_run_and_its_tools(
    temporal_client: Client, services: Services, tool_worker: Worker
) -> None:
    ref = await _agent(services, _script(
        {"tool_calls": [{"name": "exec", "arguments": {"command": "sleep 60"}}]},
        {"text": "never"}))  # fmt: skip
    handle = await _start(temporal_client, services, ref, "wait")
    for _ in range(400):  # until the exec activity started (not a timing assertion)
        if ("scheduled", "exec") in _events(await handle.fetch_history()):
            break
        await asyncio.sleep(0.05)
    await handle.signal(AgentRunWorkflow.cancel)
    status = await handle.result()
    assert status.state == "cancelled"
