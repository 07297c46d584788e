"""Two `toolgate worker` processes on the real Temporal dev server and one Postgres:
rate limits hold across them, and a config change reaches both without a restart."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from toolgate.config import Settings
from toolgate.services import Services, build_services
from toolgate.store import Agent
from toolgate.tools import CallContext, Capability
from toolgate.worker import call_context
from toolgate.workflows import ToolCallRequest, ToolCallWorkflow

from ..helpers import SECRET_KEYS, new_tenant, toolgate_client

BURST = 5
CALLS = 16


@pytest.fixture
def two_workers(
    temporal_dev_server: WorkflowEnvironment,
    pg_url: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """Two worker processes on one task queue; ``@pytest.mark.rate_limit`` sets their limit."""
    marker = request.node.get_closest_marker("rate_limit")
    limit = marker.kwargs if marker else {"per_minute": 6000, "burst": 1000}
    task_queue = f"tq-{uuid.uuid4().hex[:12]}"
    env = {
        **os.environ,
        "TOOLGATE_DATABASE_URL": pg_url,
        "TOOLGATE_TEMPORAL_ADDRESS": temporal_dev_server.client.service_client.config.target_host,
        "TOOLGATE_TASK_QUEUE": task_queue,
        "TOOLGATE_WORKSPACE_ROOT": str(tmp_path / "ws"),
        "TOOLGATE_RATE_LIMIT_PER_MINUTE": str(limit["per_minute"]),
        "TOOLGATE_RATE_LIMIT_BURST": str(limit["burst"]),
        "TOOLGATE_LOG_LEVEL": "warning",
        "TOOLGATE_SECRET_KEYS": SECRET_KEYS,
    }
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "toolgate", "worker"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=(tmp_path / f"worker{i}.log").open("wb"),
        )
        for i in range(2)
    ]
    try:
        yield task_queue, procs
    finally:
        killed = {i for i, proc in enumerate(procs) if proc.poll() is not None}
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for i, proc in enumerate(procs):
            if i in killed:
                continue  # a test killed it on purpose
            try:
                code = proc.wait(90)  # a loaded CI machine can take a while; not a timing test
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            log = (tmp_path / f"worker{i}.log").read_text()
            assert code == 0, f"worker {i} exited with {code}:\n{log}"


async def _pollers(env: WorkflowEnvironment, task_queue: str) -> int:
    from temporalio.api.enums.v1 import TaskQueueType
    from temporalio.api.taskqueue.v1 import TaskQueue
    from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

    response = await env.client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=env.client.namespace,
            task_queue=TaskQueue(name=task_queue),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        )
    )
    return len({p.identity for p in response.pollers})


@pytest.fixture
async def own_services(pg_url: str) -> AsyncIterator[Services]:
    """This test process's services (the workers are other processes)."""
    services = build_services(Settings(database_url=pg_url, secret_keys=SECRET_KEYS))
    try:
        yield services
    finally:
        await services.close()


async def _new_agent(services: Services, name: str, policy: dict[str, Any]) -> Agent:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    return await services.agents.create(tenant, name, policy)


async def _both_polling(
    env: WorkflowEnvironment, task_queue: str, procs: list[subprocess.Popen[bytes]], logs: Path
) -> None:
    while await _pollers(env, task_queue) < 2:
        dead = [p.returncode for p in procs if p.poll() is not None]
        assert not dead, f"a worker exited with {dead}; see {logs}/worker*.log"
        await asyncio.sleep(0.1)  # waiting for both processes to poll, not a timing assertion


@pytest.mark.devserver
@pytest.mark.rate_limit(per_minute=0.01, burst=BURST)
async def test_rate_limit_holds_across_two_worker_processes(
    temporal_dev_server: WorkflowEnvironment,
    two_workers: tuple[str, list[subprocess.Popen[bytes]]],
    own_services: Services,
    tmp_path: Path,
) -> None:
    task_queue, procs = two_workers
    agent = await _new_agent(own_services, "busy", {"allow": ["list_files"]})
    client = toolgate_client(temporal_dev_server)
    await _both_polling(temporal_dev_server, task_queue, procs, tmp_path)

    async def one(i: int) -> str | None:
        with call_context(
            CallContext(tenant_id=agent.tenant_id, agent_id=agent.id, session_key="shared")
        ):
            result = await client.execute_workflow(
                ToolCallWorkflow.run,
                ToolCallRequest(
                    tool="list_files", call_id=f"c{i}", capability=Capability.READ_ONLY
                ),
                id=f"two-workers-{uuid.uuid4().hex}",
                task_queue=task_queue,
            )
        return result.error_code

    codes = await asyncio.gather(*(one(i) for i in range(CALLS)))
    assert codes.count(None) == BURST
    assert codes.count("rate_limited") == CALLS - BURST


async def _call_until_both_workers_answered(
    client: Client,
    task_queue: str,
    agent: Agent,
    tool: str = "list_files",
    arguments: dict[str, str] | None = None,
) -> list[tuple[str, str | None]]:
    """(worker identity, error code) of calls made one by one until both workers ran one."""
    seen: list[tuple[str, str | None]] = []
    while len({who for who, _ in seen}) < 2:
        assert len(seen) < 60, f"one worker took every call: {seen}"
        workflow_id = f"reload-{uuid.uuid4().hex}"
        with call_context(CallContext(tenant_id=agent.tenant_id, agent_id=agent.id)):
            result = await client.execute_workflow(
                ToolCallWorkflow.run,
                ToolCallRequest(
                    tool=tool,
                    call_id="c",
                    arguments=arguments or {},
                    capability=Capability.READ_ONLY,
                ),  # fmt: skip
                id=workflow_id,
                task_queue=task_queue,
            )
        history = await client.get_workflow_handle(workflow_id).fetch_history()
        started = next(
            e.activity_task_started_event_attributes.identity
            for e in history.events
            if e.HasField("activity_task_started_event_attributes")
        )
        seen.append((started, result.error_code))
    return seen


@pytest.mark.devserver
async def test_a_policy_change_reaches_both_workers_without_a_restart(
    temporal_dev_server: WorkflowEnvironment,
    two_workers: tuple[str, list[subprocess.Popen[bytes]]],
    own_services: Services,
    tmp_path: Path,
) -> None:
    services = own_services
    task_queue, procs = two_workers
    client = toolgate_client(temporal_dev_server)
    agent = await _new_agent(services, "steady", {"allow": ["list_files"]})
    tenant = agent.tenant_id
    await _both_polling(temporal_dev_server, task_queue, procs, tmp_path)
    # Both workers have now read (and cached) the agent's config.
    before = await _call_until_both_workers_answered(client, task_queue, agent)
    assert {code for _, code in before} == {None}
    await services.agents.set_policy(tenant, agent.id, {"deny": ["list_files"]})
    after = await _call_until_both_workers_answered(client, task_queue, agent)
    assert {code for _, code in after} == {"tool_not_allowed"}, after
    await services.tool_settings.set_tenant(tenant, "list_files", {"note": "ok"})
    await services.agents.set_policy(tenant, agent.id, {})
    again = await _call_until_both_workers_answered(client, task_queue, agent)
    assert {code for _, code in again} == {None}, again


@pytest.mark.devserver
async def test_a_deny_group_toggle_reaches_both_workers_without_a_restart(
    temporal_dev_server: WorkflowEnvironment,
    two_workers: tuple[str, list[subprocess.Popen[bytes]]],
    own_services: Services,
    tmp_path: Path,
) -> None:
    services = own_services
    task_queue, procs = two_workers
    client = toolgate_client(temporal_dev_server)
    agent = await _new_agent(services, "shell", {"allow": ["exec"]})
    tenant = agent.tenant_id
    await _both_polling(temporal_dev_server, task_queue, procs, tmp_path)
    dump = {"command": "printenv"}
    before = await _call_until_both_workers_answered(client, task_queue, agent, "exec", dump)
    assert {code for _, code in before} == {"command_denied"}
    await services.agents.set_other_config(
        tenant, agent.id, "shell_deny_groups", {"env_dump": False}
    )
    after = await _call_until_both_workers_answered(client, task_queue, agent, "exec", dump)
    assert {code for _, code in after} == {None}, after


@pytest.mark.devserver
async def test_a_killed_worker_loses_nothing_and_no_mutating_tool_runs_twice(
    temporal_dev_server: WorkflowEnvironment,
    two_workers: tuple[str, list[subprocess.Popen[bytes]]],
    own_services: Services,
    tmp_path: Path,
) -> None:
    services = own_services
    from toolgate.activities.agent import AgentRef
    from toolgate.workflows import AgentRunInput, AgentRunWorkflow

    task_queue, procs = two_workers
    client = toolgate_client(temporal_dev_server)
    agent = await _new_agent(services, "sturdy", {})
    tenant = agent.tenant_id

    def run(command: str) -> dict[str, Any]:
        return {"tool_calls": [{"name": "exec", "arguments": {"command": command}}]}

    script = {"turns": [
        run("echo once >> log.txt"), run("echo twice >> log.txt; sleep 45"),
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "log.txt"}}]},
        {"text": "finished"}]}  # fmt: skip
    llm = {"provider": "scripted", "script": script}
    await services.agents.set_other_config(tenant, agent.id, "llm", llm)
    await _both_polling(temporal_dev_server, task_queue, procs, tmp_path)
    log = tmp_path / "ws" / tenant / agent.id / "_shared" / "log.txt"
    ref = AgentRef(tenant_id=tenant, agent_id=agent.id)
    with call_context(CallContext(tenant_id=tenant, agent_id=agent.id)):
        handle = await client.start_workflow(
            AgentRunWorkflow.run, AgentRunInput(agent=ref, message="go"),
            id=f"sturdy-{uuid.uuid4().hex}", task_queue=task_queue,
        )  # fmt: skip
    for _ in range(600):  # until the second exec runs (not a timing assertion)
        if log.exists() and log.read_text().count("\n") == 2:
            break
        await asyncio.sleep(0.05)
    history = await handle.fetch_history()
    running = [e.activity_task_started_event_attributes.identity for e in history.events
               if e.HasField("activity_task_started_event_attributes")][-1]  # fmt: skip
    victim = next(p for p in procs if running.startswith(f"{p.pid}@"))
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    status = await handle.result()  # the other worker carries on
    assert status.state == "completed" and status.final_text == "finished"
    assert log.read_text() == "once\ntwice\n"  # neither exec ran a second time
    tools = [m for m in await handle.query(AgentRunWorkflow.history) if m.role == "tool"]
    assert tools[0].content == "exit code 0\n"
    assert tools[1].is_error and "exec failed" in tools[1].content  # heartbeat timeout
    assert tools[2].content == "once\ntwice\n"


@pytest.mark.devserver
async def test_a_parents_worker_killed_its_subagent_goes_on_and_the_parent_reads_it(
    temporal_dev_server: WorkflowEnvironment,
    two_workers: tuple[str, list[subprocess.Popen[bytes]]],
    own_services: Services,
    tmp_path: Path,
) -> None:
    """No worker memory holds the subagents: the parent's state is its history."""
    services = own_services
    from toolgate.activities.agent import AgentRef
    from toolgate.workflows import AgentRunInput, AgentRunWorkflow

    task_queue, procs = two_workers
    client = toolgate_client(temporal_dev_server)
    agent = await _new_agent(services, "parent", {"profile": "coding"})
    tenant = agent.tenant_id
    child = {"turns": [{"tool_calls": [{"name": "exec", "arguments": {
        "command": "echo started >> child.txt; sleep 3"}}]}, {"text": "child answer"}]}  # fmt: skip
    llm = {"provider": "scripted", "script": {"turns": [
        {"tool_calls": [{"name": "spawn", "arguments": {"task": "work", "label": "w"}}]},
        {"text": "waiting"}, {"text": "got it"}]}, "subagent_scripts": {"work": child}}  # fmt: skip
    await services.agents.set_other_config(tenant, agent.id, "llm", llm)
    await _both_polling(temporal_dev_server, task_queue, procs, tmp_path)
    marker = tmp_path / "ws" / tenant / agent.id / "_shared" / "child.txt"
    with call_context(CallContext(tenant_id=tenant, agent_id=agent.id)):
        handle = await client.start_workflow(
            AgentRunWorkflow.run, AgentRunInput(agent=AgentRef(tenant_id=tenant,
            agent_id=agent.id), message="go"), id=f"parent-{uuid.uuid4().hex}",
            task_queue=task_queue,
        )  # fmt: skip
    for _ in range(600):  # until the subagent's exec runs (not a timing assertion)
        if marker.exists():
            break
        await asyncio.sleep(0.05)
    history = await handle.fetch_history()
    holder = [e.workflow_task_started_event_attributes.identity for e in history.events
              if e.HasField("workflow_task_started_event_attributes")][-1]  # fmt: skip
    victim = next(p for p in procs if holder.startswith(f"{p.pid}@"))
    victim.send_signal(signal.SIGKILL)  # the worker that ran the parent's last task
    victim.wait()
    status = await handle.result()  # the other worker resumes the parent from its history
    assert (status.state, status.final_text) == ("completed", "got it"), status
    reports = [m.content for m in await handle.query(AgentRunWorkflow.history)
               if m.role == "user"][1:]  # fmt: skip
    assert reports == [f"[subagent {handle.id}-sub-1 (w) completed] child answer"]
    row = await services.child_runs.get(tenant, f"{handle.id}-sub-1")
    assert row is not None and row.state == "completed"
