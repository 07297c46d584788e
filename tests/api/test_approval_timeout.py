"""An install nobody decides on is denied when its durable timer fires (time-skipping)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import httpx
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from toolgate.services import Services
from toolgate.tools import CallContext, Capability
from toolgate.worker import call_context
from toolgate.workflows import ToolCallRequest, ToolCallWorkflow

from ..helpers import TenantKeys


async def test_the_approval_times_out_durably_and_a_late_decision_is_refused(
    api: httpx.AsyncClient,
    acme: TenantKeys,
    services: Services,
    temporal_client: Client,
    temporal_env: WorkflowEnvironment,
) -> None:
    body = {"name": "late", "tool_policy": {"allow": ["exec"]}}
    agent = (await api.post("/v1/agents", json=body, headers=acme.admin)).json()["id"]
    request = ToolCallRequest(
        tool="exec", call_id="c1", arguments={"command": "apt-get install -y cowsay"},
        capability=Capability.MUTATING, approval_timeout_seconds=600,
    )  # fmt: skip
    with call_context(CallContext(tenant_id=acme.tenant_id, agent_id=agent)):
        handle = await temporal_client.start_workflow(
            ToolCallWorkflow.run, request, id=f"late-{uuid.uuid4().hex}",
            task_queue=services.settings.task_queue,
        )  # fmt: skip
    for _ in range(400):  # until the gate has asked (not a timing assertion)
        status = await handle.query(ToolCallWorkflow.status)
        if status.state == "awaiting_approval":
            break
        await asyncio.sleep(0.05)
    assert status.state == "awaiting_approval" and status.approval_id
    await temporal_env.sleep(timedelta(minutes=11))  # ten minutes pass in milliseconds
    result = await handle.result()
    assert result.error_code == "approval_timeout" and "it was not run" in result.for_llm
    late = await api.post(f"/v1/approvals/{status.approval_id}", json={"decision": "approve"},
                          headers=acme.admin)  # fmt: skip
    assert late.status_code == 409 and late.json()["code"] == "approval_expired"
    expired = (await api.get(f"/v1/approvals/{status.approval_id}", headers=acme.admin)).json()
    assert expired["status"] == "expired"
