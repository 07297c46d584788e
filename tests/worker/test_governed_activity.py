"""The governed call on real Temporal (time-skipping server) and real Postgres."""

from __future__ import annotations

import uuid

import pytest
from temporalio.client import Client, WorkflowFailureError

from toolgate.config import Settings
from toolgate.services import Services, build_services
from toolgate.tools import CallContext, Capability, ToolResult
from toolgate.tools.builtin import builtin_registry
from toolgate.worker import build_worker, call_context
from toolgate.workflows import ToolCallRequest, ToolCallWorkflow

from ..helpers import new_tenant
from ..sample_tools import Counter, Echo, Flaky, WhoAmI


@pytest.fixture
async def rig(temporal_client: Client, settings: Settings):
    registry = builtin_registry()
    flaky_read = Flaky("flaky_read", Capability.READ_ONLY, failures=2)
    flaky_write = Flaky("flaky_write", Capability.MUTATING, failures=1)
    counter = Counter()
    for tool in (Echo(), WhoAmI(), flaky_read, flaky_write, counter):
        registry.register(tool)
    services = build_services(settings, registry)
    tenant = new_tenant()
    await services.tenants.create(tenant)
    agent = await services.agents.create(tenant, "tester", {})
    async with build_worker(temporal_client, services):
        yield services, agent, {"flaky_read": flaky_read, "flaky_write": flaky_write}
    await services.close()


async def _call(
    client: Client, services: Services, agent, tool: str, args: dict, **ctx: str
) -> tuple[ToolResult, str]:
    desc = services.registry.describe(tool)
    workflow_id = f"test-{uuid.uuid4().hex}"
    context = CallContext(tenant_id=agent.tenant_id, agent_id=agent.id, **ctx)
    with call_context(context):
        result = await client.execute_workflow(
            ToolCallWorkflow.run,
            ToolCallRequest(
                tool=tool, call_id="c1", arguments=args,
                capability=desc.capability, idempotent=desc.idempotent,
            ),
            id=workflow_id,
            task_queue=services.settings.task_queue,
        )  # fmt: skip
    return result, workflow_id


async def test_each_tool_runs_as_an_activity_named_after_it(temporal_client, rig) -> None:
    services, agent, _ = rig
    result, wf = await _call(temporal_client, services, agent, "echo_text", {"text": "hi"})
    assert result.for_llm == "hi"
    history = await temporal_client.get_workflow_handle(wf).fetch_history()
    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
    assert scheduled == ["echo_text"]


async def test_context_travels_in_headers_to_the_tool(temporal_client, rig) -> None:
    services, agent, _ = rig
    result, wf = await _call(
        temporal_client, services, agent, "whoami_get", {},
        user_id="alice", session_key="sess-9", channel="telegram", chat_id="42",
    )  # fmt: skip
    run_id = (await temporal_client.get_workflow_handle(wf).describe()).run_id
    assert result.for_llm == (
        f"tenant={agent.tenant_id} agent={agent.id} user=alice session=sess-9 "
        f"channel=telegram chat=42 call={run_id}:c1 workspace=alice"
    )


async def test_unscrubbed_output_never_enters_workflow_history(temporal_client, rig) -> None:
    services, agent, _ = rig
    secret = "ghp_" + "A1b2C3d4" * 5
    result, wf = await _call(temporal_client, services, agent, "echo_text", {"text": "x"})
    args = {"text": f"tok {secret}"}
    result, wf = await _call(temporal_client, services, agent, "echo_text", args)
    assert result.for_llm == "tok [REDACTED]"
    history = await temporal_client.get_workflow_handle(wf).fetch_history()
    completed = [
        e.activity_task_completed_event_attributes.result.SerializeToString()
        for e in history.events
        if e.HasField("activity_task_completed_event_attributes")
    ]
    assert completed and all(secret.encode() not in c for c in completed)
    records = await services.audit.list(agent.tenant_id, agent.id)
    assert records[0].result.for_llm == "tok [REDACTED]"
    assert secret not in str(records[0].arguments)


async def test_read_only_tool_is_retried_after_infrastructure_failures(
    temporal_client, rig
) -> None:
    services, agent, tools = rig
    result, _ = await _call(temporal_client, services, agent, "flaky_read", {})
    assert result.for_llm == "ok after 3 calls" and tools["flaky_read"].calls == 3


async def test_mutating_tool_runs_at_most_once_and_the_workflow_is_not_retried(
    temporal_client, rig
) -> None:
    services, agent, tools = rig
    with pytest.raises(WorkflowFailureError) as failure:
        await _call(temporal_client, services, agent, "flaky_write", {})
    assert "could not be completed" in str(failure.value.cause)
    assert tools["flaky_write"].calls == 1


async def test_every_call_is_audited_in_postgres(temporal_client, rig) -> None:
    services, agent, _ = rig
    await _call(temporal_client, services, agent, "echo_text", {"text": "one"})
    await _call(temporal_client, services, agent, "echo_text", {"nope": 1})
    records = await services.audit.list(agent.tenant_id, agent.id)
    assert [(r.tool, r.outcome, r.error_code) for r in records] == [
        ("echo_text", "refused", "invalid_arguments"),
        ("echo_text", "ok", None),
    ]
    assert all(r.tool_call_id.endswith(":c1") for r in records)


async def test_a_call_without_context_is_refused_not_run(temporal_client, rig) -> None:
    services, _agent, _ = rig
    with pytest.raises(WorkflowFailureError) as failure:
        await temporal_client.execute_workflow(
            ToolCallWorkflow.run,
            ToolCallRequest(tool="echo_text", call_id="c1", arguments={"text": "x"},
                            capability=Capability.READ_ONLY),
            id=f"test-{uuid.uuid4().hex}",
            task_queue=services.settings.task_queue,
        )  # fmt: skip
    assert "toolgate-context" in str(failure.value.cause)
