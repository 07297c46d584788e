"""Rate limits hold across worker processes: two `toolgate worker` processes on the
real Temporal dev server, one Postgres, one session key."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from toolgate.config import Settings
from toolgate.services import build_services
from toolgate.tools import CallContext, Capability
from toolgate.worker import call_context
from toolgate.workflows import ToolCallRequest, ToolCallWorkflow

from ..helpers import SECRET_KEYS, new_tenant

BURST = 5
CALLS = 16


@pytest.fixture
def two_workers(
    temporal_dev_server: WorkflowEnvironment, pg_url: str, tmp_path: Path
) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    task_queue = f"tq-{uuid.uuid4().hex[:12]}"
    env = {
        **os.environ,
        "TOOLGATE_DATABASE_URL": pg_url,
        "TOOLGATE_TEMPORAL_ADDRESS": temporal_dev_server.client.service_client.config.target_host,
        "TOOLGATE_TASK_QUEUE": task_queue,
        "TOOLGATE_WORKSPACE_ROOT": str(tmp_path / "ws"),
        "TOOLGATE_RATE_LIMIT_PER_MINUTE": "0.01",
        "TOOLGATE_RATE_LIMIT_BURST": str(BURST),
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
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            assert proc.wait(30) == 0, (tmp_path / "worker0.log").read_text()


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


@pytest.mark.devserver
async def test_rate_limit_holds_across_two_worker_processes(
    temporal_dev_server: WorkflowEnvironment,
    two_workers: tuple[str, list[subprocess.Popen[bytes]]],
    pg_url: str,
    tmp_path: Path,
) -> None:
    task_queue, procs = two_workers
    services = build_services(Settings(database_url=pg_url, secret_keys=SECRET_KEYS))
    tenant = new_tenant()
    await services.tenants.create(tenant)
    agent = await services.agents.create(tenant, "busy", {"allow": ["list_files"]})
    await services.close()
    client = temporal_dev_server.client
    while await _pollers(temporal_dev_server, task_queue) < 2:
        dead = [p.returncode for p in procs if p.poll() is not None]
        assert not dead, f"a worker exited with {dead}; see {tmp_path}/worker*.log"
        await asyncio.sleep(0.1)  # waiting for both processes to poll, not a timing assertion

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
