"""Subagents (spec §13) on the time-skipping server: spawn, steer, cancel, run, the
leaf deny at depth 1, limits, and archival 60 minutes after completion."""

from __future__ import annotations

import json
import uuid
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from toolgate.services import Services
from toolgate.store import CliBinaryInput
from toolgate.workflows import AgentRunWorkflow, SubagentWorkflow

from ..helpers import eventually, new_tenant
from ..wire_server import WireServer
from .test_agent_run import _agent, _start

SLOW = {"turns": [{"tool_calls": [{"name": "exec", "arguments": {"command": "sleep 5"}}]},
                  {"text": "slow done"}]}  # fmt: skip


def _spawn(**args: Any) -> dict[str, Any]:
    return {"name": "spawn", "arguments": args}


async def test_spawn_three_steer_one_cancel_one_the_third_reports_and_is_archived(
    own_client: Client, services: Services, own_worker: Worker, wire_server: WireServer
) -> None:
    """The issue's "done when", on the time-skipping server.

    The parent stays open through the hour on a sync delegation to an agent whose
    provider rate-limits it for 65 minutes (a durable retry delay): the test server
    cannot skip time once a child has ended after its parent (docs/decisions.md).
    """
    tenant = new_tenant()
    await services.tenants.create(tenant)
    slowpoke = await services.agents.create(tenant, "slowpoke", {"profile": "minimal"})
    await services.agents.set_other_config(tenant, slowpoke.id, "llm", {
        "provider": "openai", "model": "m", "base_url": wire_server.url + "/v1",
        "api_key_secret": "local_key"})  # fmt: skip
    await services.secrets.put(tenant, "local_key", "sk-local-test-0123456789")
    wire_server.reply({"error": "slow down"}, 429, {"Retry-After": str(65 * 60)})
    wire_server.reply({"choices": [{"message": {"role": "assistant", "content": "slow answer"},
                                    "finish_reason": "stop"}], "usage": {}})  # fmt: skip
    parent = f"run-{uuid.uuid4().hex}"
    llm = {"provider": "scripted", "script": {"turns": [
        {"tool_calls": [_spawn(task="slow-a", label="a"), _spawn(task="slow-b", label="b"),
                        _spawn(task="fast-c", label="c")]},
        {"tool_calls": [_spawn(action="steer", id=f"{parent}-sub-1", task="fast-a2"),
                        _spawn(action="cancel", id=f"{parent}-sub-2")]},
        {"text": "reports read"},
        {"text": "reports read"},
        {"tool_calls": [{"name": "delegate", "arguments": {
            "agent": "slowpoke", "task": "take your time", "timeout_seconds": 7200}}]},
        {"text": "all done"}]},
        "subagent_scripts": {"slow-a": SLOW, "slow-b": SLOW,
                             "fast-a2": {"turns": [{"text": "steered answer"}]},
                             "fast-c": {"turns": [{"text": "the third answer"}]}}}  # fmt: skip
    ref = await _agent(services, llm, {"profile": "coding", "also_allow": ["delegate"]},
                       tenant=tenant)  # fmt: skip
    await services.agent_links.create(tenant, ref.agent_id, slowpoke.id, "outbound", ["sync"])
    handle = await _start(own_client, services, ref, "fan out", run_id=parent)
    status = await handle.result()  # waiting lets the server skip the 65 minutes
    assert (status.state, status.final_text) == ("completed", "all done"), status
    history = await handle.query(AgentRunWorkflow.history)
    tools = [m for m in history if m.role == "tool"]
    assert [json.loads(t.content)["id"] for t in tools[:3]] == [
        f"{parent}-sub-{n}" for n in (1, 2, 3)
    ]
    assert json.loads(tools[3].content)["replaces"] == f"{parent}-sub-1"
    assert json.loads(tools[4].content)["cancelled"] == [f"{parent}-sub-2"]
    assert tools[5].content == "slow answer"  # the sync delegation's answer
    # The async children's results reached the parent as messages.
    reports = sorted(m.content for m in history[1:] if m.role == "user")
    assert reports == [f"[subagent {parent}-sub-3 (c) completed] the third answer",
                       f"[subagent {parent}-sub-4 (a) completed] steered answer"]  # fmt: skip
    records = {r.id.rsplit("-", 2)[1] + r.id[-1]: r
               for r in await handle.query(AgentRunWorkflow.children)}  # fmt: skip
    assert {k: r.state for k, r in records.items()} == {"sub1": "cancelled", "sub2": "cancelled",
        "sub3": "completed", "sub4": "completed", "del5": "completed"}  # fmt: skip
    assert (records["sub1"].replaced_by, records["sub4"].label) == (f"{parent}-sub-4", "a")
    # The third subagent was archived an hour after it completed, while its parent
    # waited for the delegation; the parent's record says so too.
    assert records["sub3"].archived and records["sub4"].archived
    third = own_client.get_workflow_handle_for(SubagentWorkflow.run, f"{parent}-sub-3")
    assert (await third.describe()).parent_id == parent  # the Web UI shows the tree
    assert await third.query(SubagentWorkflow.phase) == "archived"
    timers = [e.timer_started_event_attributes for e in (await third.fetch_history()).events
              if e.HasField("timer_started_event_attributes")]  # fmt: skip
    assert [t.start_to_fire_timeout.ToSeconds() for t in timers] == [3600]
    rows = {c.id: c for c in await services.child_runs.find(tenant, parent_id=parent,
                                                            include_archived=True)}  # fmt: skip
    assert {k.rsplit("-", 1)[1]: (r.state, r.archived) for k, r in rows.items()} == {
        "1": ("cancelled", False), "2": ("cancelled", False), "3": ("completed", True),
        "4": ("completed", True), "5": ("completed", rows[f"{parent}-del-5"].archived)}  # fmt: skip
    listed = {c.id for c in await services.child_runs.find(tenant, parent_id=parent)}
    assert listed & {third.id, f"{parent}-sub-4"} == set()  # archived: not listed by default
    assert {f"{parent}-sub-1", f"{parent}-sub-2"} <= listed


async def test_a_subagent_cannot_spawn_and_bad_spawns_are_answered(
    own_client: Client, services: Services, own_worker: Worker
) -> None:
    child_tries = {"turns": [{"tool_calls": [_spawn(task="grandchild")]}, {"text": "no luck"}]}
    llm = {"provider": "scripted", "script": {"turns": [
        {"tool_calls": [_spawn(task=""), _spawn(action="cancel", id="nobody"),
                        _spawn(action="steer", id="nobody", task="x"),
                        _spawn(action="run", task="try-deeper")]},
        {"tool_calls": [_spawn(action="steer", id="__1__", task="again"),
                        {"name": "spawn", "arguments": {"action": "explode"}}]},
        {"text": "ok"}]}, "subagent_scripts": {"try-deeper": child_tries}}  # fmt: skip
    run_id = f"run-{uuid.uuid4().hex}"
    ref = await _agent(services, json.loads(json.dumps(llm).replace("__1__", f"{run_id}-sub-1")))
    handle = await _start(own_client, services, ref, "go", run_id=run_id)
    status = await handle.result()
    assert status.state == "completed"
    tools = [m for m in await handle.query(AgentRunWorkflow.history) if m.role == "tool"]
    assert "spawn needs a task" in tools[0].content
    assert "no subagent 'nobody'" in tools[1].content and "no subagent" in tools[2].content
    assert tools[3].content == "no luck"
    assert tools[4].is_error and f"{run_id}-sub-1 is completed; spawn a new one" in tools[4].content
    assert tools[5].is_error and "action" in tools[5].content  # not one of the five actions
    child = own_client.get_workflow_handle_for(SubagentWorkflow.run, f"{handle.id}-sub-1")
    child_tools = [m for m in await child.query(SubagentWorkflow.history) if m.role == "tool"]
    # The leaf deny list: the child's own tool list has no spawn, and its call is refused
    # by the gate of its tool activity (whose context says depth 1).
    assert child_tools[0].is_error and "is not allowed for agent" in child_tools[0].content
    audit = await services.audit.list(ref.tenant_id, ref.agent_id)
    assert [e.error_code for e in audit if e.tool == "spawn"] == ["tool_not_allowed"]


async def test_a_sixth_running_child_is_rejected_naming_the_limit(
    own_client: Client, services: Services, own_worker: Worker
) -> None:
    six = [_spawn(task="slow", label=str(i)) for i in range(6)]
    llm = {"provider": "scripted", "script": {"turns": [
        {"tool_calls": six}, {"tool_calls": [_spawn(action="cancel", id="all")]},
        {"text": "ok"}]}, "subagent_scripts": {"slow": SLOW}}  # fmt: skip
    ref = await _agent(services, llm)
    handle = await _start(own_client, services, ref, "many")
    await handle.result()
    tools = [m for m in await handle.query(AgentRunWorkflow.history) if m.role == "tool"]
    assert [t.is_error for t in tools[:6]] == [False] * 5 + [True]
    assert "at most 5 running subagents" in tools[5].content
    assert len(json.loads(tools[6].content)["cancelled"]) == 5


HOLD = {"turns": [{"tool_calls": [{"name": "exec", "arguments": {"command": "sleep 120"}}]},
                  {"text": "held"}]}  # fmt: skip


async def _until_running(handle: Any, count: int) -> None:
    async def running() -> bool:
        children = await handle.query(AgentRunWorkflow.children)
        return sum(1 for c in children if c.state == "running") >= count

    await eventually(running, f"{count} running children of {handle.id}")


async def test_the_ninth_concurrent_subagent_of_a_tenant_is_rejected_naming_the_limit(
    dev_client: Client, services: Services, dev_worker: Worker
) -> None:
    """Two parents of one tenant: 5 + 4 spawns; the 9th is over max_concurrent (8)."""

    def script(n: int, then: list[dict[str, Any]]) -> dict[str, Any]:
        return {"provider": "scripted", "script": {"turns": [
            {"tool_calls": [_spawn(task="hold", label=str(i)) for i in range(n)]}, *then,
            {"text": "ok"}]}, "subagent_scripts": {"hold": HOLD}}  # fmt: skip

    one_id = f"run-{uuid.uuid4().hex}"
    cancel_all = [{"tool_calls": [_spawn(action="cancel", id="all")]}]
    # The second parent also tries to cancel and steer a child of the first: unknown.
    meddle = [{"tool_calls": [_spawn(action="cancel", id=f"{one_id}-sub-1"),
                              _spawn(action="steer", id=f"{one_id}-sub-2", task="x")]}]  # fmt: skip
    first = await _agent(services, script(5, []))  # waits for its five
    second = await _agent(services, script(4, [*meddle, *cancel_all]), tenant=first.tenant_id,
                          name="b")  # fmt: skip
    other_tenant = await _agent(services, script(2, cancel_all))  # counted apart
    one = await _start(dev_client, services, first, "five", run_id=one_id)
    await _until_running(one, 5)
    two = await _start(dev_client, services, second, "four")
    three = await _start(dev_client, services, other_tenant, "two")
    await two.result()
    tools = [m for m in await two.query(AgentRunWorkflow.history) if m.role == "tool"]
    assert [t.is_error for t in tools[:4]] == [False, False, False, True]
    assert "already runs 8 subagents (limit max_concurrent = 8)" in tools[3].content
    unknown = [f"no subagent '{one_id}-sub-{n}' of this agent" for n in (1, 2)]
    assert [t.content.split(";")[0] for t in tools[4:6]] == unknown
    assert all(c.state == "running" for c in await one.query(AgentRunWorkflow.children))
    await one.signal(AgentRunWorkflow.cancel)  # the parent stops: so do its five
    assert (await one.result()).state == "cancelled"
    for handle in (two, three):
        assert (await handle.result()).state == "completed"
    tools = [m for m in await three.query(AgentRunWorkflow.history) if m.role == "tool"]
    assert not any(t.is_error for t in tools[:2])
    assert await services.child_runs.running_ids(first.tenant_id, "spawn") == []


async def test_a_subagent_cannot_reach_a_credentialed_cli_its_parent_may_not_use(
    own_client: Client, services: Services, own_worker: Worker
) -> None:
    uses_gh = {"turns": [{"tool_calls": [{"name": "exec", "arguments": {
        "command": "gh repo list"}}]}, {"text": "tried"}]}  # fmt: skip
    llm = {"provider": "scripted", "script": {"turns": [
        {"tool_calls": [_spawn(action="run", task="use gh")]}, {"text": "ok"}]},
        "subagent_scripts": {"use gh": uses_gh}}  # fmt: skip
    ref = await _agent(services, llm, {"profile": "coding"})
    granted = await services.agents.create(ref.tenant_id, "granted", {"profile": "coding"})
    gh = await services.cli_binaries.save(ref.tenant_id, CliBinaryInput(
        binary_name="gh", env={}, deny_args=[], timeout_seconds=30, tips="",
        adapter="passthrough", enabled=True))  # fmt: skip
    assert gh is not None
    await services.cli_binaries.grant(ref.tenant_id, gh.id, granted.id, True)
    handle = await _start(own_client, services, ref, "go")
    await handle.result()
    child = own_client.get_workflow_handle_for(SubagentWorkflow.run, f"{handle.id}-sub-1")
    refused = [m for m in await child.query(SubagentWorkflow.history) if m.role == "tool"][0]
    assert refused.is_error and "has no grant for it" in refused.content


async def test_a_delegate_runs_under_its_own_policy_and_bad_delegations_are_answered(
    own_client: Client, services: Services, own_worker: Worker, wire_server: WireServer
) -> None:
    tries_exec = {"turns": [{"tool_calls": [{"name": "exec", "arguments": {"command": "id"}}]},
                            {"text": "could not run it"}]}  # fmt: skip
    caller_llm = {"provider": "scripted", "script": {"turns": [
        {"tool_calls": [
            {"name": "delegate", "arguments": {"agent": "helper", "task": "run id"}},
            {"name": "delegate", "arguments": {"agent": "helper", "task": "x", "mode": "async"}},
            {"name": "delegate", "arguments": {"agent": "stranger", "task": "x"}},
            {"name": "delegate", "arguments": {"agent": "elsewhere", "task": "x"}},
            {"name": "delegate", "arguments": {"agent": "helper", "task": " "}},
            {"name": "delegate", "arguments": {"agent": "broken", "task": "x"}},
            {"name": "delegate", "arguments": {"agent": "slowpoke", "task": "hang",
                                               "timeout_seconds": 30}}]},
        {"text": "ok"}]}}  # fmt: skip
    caller = await _agent(services, caller_llm, {"profile": "coding", "also_allow": ["delegate"]})
    tenant = caller.tenant_id
    helper = await services.agents.create(tenant, "helper", {"profile": "minimal"})
    await services.agents.set_other_config(tenant, helper.id, "llm", {
        "provider": "scripted", "script": tries_exec})  # fmt: skip
    slowpoke = await services.agents.create(tenant, "slowpoke", {})
    await services.agents.set_other_config(tenant, slowpoke.id, "llm", {
        "provider": "openai", "model": "m", "base_url": wire_server.url + "/v1",
        "api_key_secret": "local_key"})  # fmt: skip
    await services.secrets.put(tenant, "local_key", "sk-local-test-0123456789")
    wire_server.reply({"error": "slow down"}, 429, {"Retry-After": "3600"})  # a durable wait
    await services.agents.create(tenant, "stranger", {})  # no link
    broken = await services.agents.create(tenant, "broken", {})
    await services.agents.set_other_config(
        tenant,
        broken.id,
        "llm",
        {"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"},
    )  # no key
    elsewhere = await _agent(services, caller_llm)  # another tenant
    await services.agents.set_policy(elsewhere.tenant_id, elsewhere.agent_id, {})
    await services.agent_links.create(tenant, caller.agent_id, helper.id, "outbound", ["sync"])
    await services.agent_links.create(tenant, broken.id, caller.agent_id, "bidirectional",
                                      ["sync"])  # fmt: skip
    await services.agent_links.create(tenant, caller.agent_id, slowpoke.id, "outbound", ["sync"])
    handle = await _start(own_client, services, caller, "delegate")
    assert (await handle.result()).state == "completed"
    tools = [m for m in await handle.query(AgentRunWorkflow.history) if m.role == "tool"]
    assert tools[0].content == "could not run it" and not tools[0].is_error
    delegate = own_client.get_workflow_handle_for(SubagentWorkflow.run, f"{handle.id}-del-1")
    helper_tools = [m for m in await delegate.query(SubagentWorkflow.history) if m.role == "tool"]
    assert helper_tools[0].is_error and "not allowed" in helper_tools[0].content  # its policy
    assert "in async mode" in tools[1].content  # the link allows sync only
    unlinked = "no agent link lets this agent delegate to"
    assert unlinked in tools[2].content and unlinked in tools[3].content  # no leak
    assert "delegate needs a task" in tools[4].content
    assert tools[5].is_error and "ended failed" in tools[5].content  # a child that fails
    assert tools[6].is_error and "did not answer within 30 s" in tools[6].content
    # Ids count every attempt: the refused ones (2-4) started nothing.
    hung = own_client.get_workflow_handle_for(SubagentWorkflow.run, f"{handle.id}-del-6")
    assert (await hung.result()).state == "cancelled"
