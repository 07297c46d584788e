"""PreToolUse hooks: a built-in rewrite and a webhook on a local server; both run for
every call of a turn before any tool starts."""

from __future__ import annotations

from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from toolgate.services import Services
from toolgate.workflows import AgentRunWorkflow

from ..wire_server import WireServer
from .test_agent_run import _agent, _events, _script, _start


async def _run_with_hooks(client: Client, services: Services, hooks: list[dict[str, Any]],
                          *turns: dict[str, Any]) -> tuple[Any, list[Any], Any]:  # fmt: skip
    ref = await _agent(services, _script(*turns, {"text": "done"}))
    await services.agents.set_other_config(ref.tenant_id, ref.agent_id, "hooks", hooks)
    handle = await _start(client, services, ref, "go")
    status = await handle.result()
    tools = [m for m in await handle.query(AgentRunWorkflow.history) if m.role == "tool"]
    return status, tools, handle


async def test_a_rewrite_hook_changes_arguments_before_the_tool_runs(
    temporal_client: Client, services: Services, tool_worker: Worker
) -> None:
    hooks = [{"type": "rewrite", "tools": ["write_file"], "set": {"path": "safe.txt"}}]
    turns = (
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "z"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "safe.txt"}}]},
    )
    status, tools, _ = await _run_with_hooks(temporal_client, services, hooks, *turns)
    assert status.state == "completed"
    assert tools[0].content == "wrote 1 bytes to safe.txt" and tools[1].content == "z"


async def test_a_webhook_blocks_and_rewrites_and_runs_before_any_tool(
    temporal_client: Client, services: Services, tool_worker: Worker, wire_server: WireServer
) -> None:
    def decide(body: dict[str, Any]) -> tuple[int, Any]:
        if body["tool"] == "write_file":
            return 200, {"decision": "block", "reason": "no writes on Fridays"}
        return 200, {"decision": "allow", "arguments": {**body["arguments"], "path": "."}}

    wire_server.answer = decide
    hooks = [{"type": "webhook", "url": wire_server.url + "/hook", "timeout_seconds": 2}]
    turn = {"tool_calls": [{"name": "list_files", "arguments": {"path": "nowhere"}},
                           {"name": "write_file", "arguments": {"path": "a", "content": "b"}},
                           {"name": "list_files", "arguments": {}}]}  # fmt: skip
    status, tools, handle = await _run_with_hooks(temporal_client, services, hooks, turn)
    assert status.state == "completed"
    assert [t.is_error for t in tools] == [False, True, False]
    assert "no writes on Fridays" in tools[1].content
    seen = [r["json"] for r in wire_server.requests]
    assert [r["tool"] for r in seen] == ["list_files", "write_file", "list_files"]
    assert seen[0]["arguments"] == {"path": "nowhere"} and seen[0]["call_id"] == "call_0_0"
    events = _events(await handle.fetch_history())
    hook_done = events.index(("completed", "PreToolUse"))
    first_tool = next(i for i, e in enumerate(events) if e[1] in {"list_files", "write_file"})
    assert hook_done < first_tool  # every hook answered before any tool was scheduled


async def test_a_webhook_that_does_not_answer_blocks_the_call(
    temporal_client: Client, services: Services, tool_worker: Worker, wire_server: WireServer
) -> None:
    wire_server.delay = 1.5
    wire_server.answer = lambda body: (200, {"decision": "allow"})
    hooks = [{"type": "webhook", "url": wire_server.url + "/hook", "timeout_seconds": 0.2}]
    status, tools, _ = await _run_with_hooks(
        temporal_client, services, hooks, {"tool_calls": [{"name": "list_files"}]}
    )
    assert status.state == "completed" and tools[0].is_error
    assert "did not answer (ReadTimeout)" in tools[0].content
