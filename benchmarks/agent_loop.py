"""The agent loop on the Temporal dev server: parallel read-only fan-out vs sequential,
and the loop's own cost per iteration.

One scripted run whose first turn asks for 8 read-only tool calls of 100 ms each,
with the parallel bound at 8 and then at 1 (sequential). Then a run of 10 turns of one
trivial call each: wall time per iteration is the loop's overhead (turn setup, LLM
activity, tool activity, history).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.stack import TENANT, bench_stack  # noqa: E402
from tests.sample_tools import Nap  # noqa: E402
from toolgate.activities.agent import AgentRef  # noqa: E402
from toolgate.tools import CallContext  # noqa: E402
from toolgate.tools.builtin import builtin_registry  # noqa: E402
from toolgate.worker import call_context  # noqa: E402
from toolgate.workflows import AgentRunInput, AgentRunWorkflow  # noqa: E402

FAN_OUT = 8
TURNS = int(os.environ.get("TOOLGATE_BENCH_TURNS", "10"))


async def measure(tmp: Path) -> dict[str, float]:
    registry = builtin_registry()
    registry.register(Nap())
    results: dict[str, float] = {}
    async with bench_stack(tmp, "bench-loop", registry) as (client, services):

        async def run(llm: dict[str, Any]) -> float:
            agent = await services.agents.create(TENANT, f"a{uuid.uuid4().hex[:6]}", {})
            await services.agents.set_other_config(TENANT, agent.id, "llm", llm)
            ref = AgentRef(tenant_id=TENANT, agent_id=agent.id)
            start = time.perf_counter()
            with call_context(CallContext(tenant_id=TENANT, agent_id=agent.id)):
                status = await client.execute_workflow(
                    AgentRunWorkflow.run, AgentRunInput(agent=ref, message="go"),
                    id=f"bench-{uuid.uuid4().hex}", task_queue="bench-loop",
                )  # fmt: skip
            assert status.state == "completed", status
            return time.perf_counter() - start

        fan = [{"name": "nap", "arguments": {"seconds": 0.1}}] * FAN_OUT
        script = {"turns": [{"tool_calls": fan}, {"text": "ok"}]}
        results["parallel_s"] = await run({"provider": "scripted", "script": script,
                                           "parallel_tool_calls": FAN_OUT})  # fmt: skip
        results["sequential_s"] = await run({"provider": "scripted", "script": script,
                                             "parallel_tool_calls": 1})  # fmt: skip
        turns = [{"tool_calls": [{"name": "nap", "arguments": {"seconds": 0}}]}] * TURNS
        long = await run({"provider": "scripted", "script": {"turns": [*turns, {"text": "ok"}]}})
        results["per_iteration_ms"] = long / (TURNS + 1) * 1000
    results["ratio"] = results["sequential_s"] / results["parallel_s"]
    return results


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(measure(Path(tmp)))


if __name__ == "__main__":
    r = main()
    print(
        f"agent loop: {FAN_OUT} read-only calls of 100 ms in one turn: parallel "
        f"{r['parallel_s']:.2f} s, sequential {r['sequential_s']:.2f} s (x{r['ratio']:.1f}); "
        f"per iteration (turn setup + LLM + one tool) {r['per_iteration_ms']:.0f} ms"
    )
