"""Subagents on the Temporal dev server: spawn-to-running latency, and 8 subagents at
once vs one after another.

Latency: from the end of the parent's LLM call that asked for ``spawn`` to the start
of the subagent's first workflow task (server timestamps), which covers the admission
activity (Postgres, with the tenant lock) and the child workflow start. It is
compared with a plain workflow start from a client (start call to first task).

Fan-out: a parent gives 8 subagents a task of one 0.5 s tool call each, either with
8 ``spawn`` at once (their reports come back as messages) or with 8 ``run`` in turn.
"""

from __future__ import annotations

import asyncio
import os
import statistics
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
SAMPLES = int(os.environ.get("TOOLGATE_BENCH_SPAWNS", "10"))
NAP = {"turns": [{"tool_calls": [{"name": "nap", "arguments": {"seconds": 0.5}}]},
                 {"text": "done"}]}  # fmt: skip


def _spawn(**args: Any) -> dict[str, Any]:
    return {"name": "spawn", "arguments": args}


def _seconds(event: Any) -> float:
    return float(event.event_time.seconds + event.event_time.nanos / 1e9)


async def measure(tmp: Path) -> dict[str, float]:
    registry = builtin_registry()
    registry.register(Nap())
    results: dict[str, float] = {}
    async with bench_stack(tmp, "bench-sub", registry) as (client, services):
        await services.tool_settings.set_tenant(TENANT, "spawn", {"max_children": FAN_OUT})

        async def run(llm: dict[str, Any]) -> tuple[float, str]:
            agent = await services.agents.create(TENANT, f"a{uuid.uuid4().hex[:6]}", {})
            await services.agents.set_other_config(TENANT, agent.id, "llm", llm)
            ref = AgentRef(tenant_id=TENANT, agent_id=agent.id)
            run_id = f"bench-{uuid.uuid4().hex}"
            start = time.perf_counter()
            with call_context(CallContext(tenant_id=TENANT, agent_id=agent.id)):
                status = await client.execute_workflow(
                    AgentRunWorkflow.run, AgentRunInput(agent=ref, message="go"),
                    id=run_id, task_queue="bench-sub",
                )  # fmt: skip
            assert status.state == "completed", status
            return time.perf_counter() - start, run_id

        latencies, starts = [], []
        quick = {"turns": [{"text": "hi"}]}
        for _ in range(SAMPLES):
            turns = [{"tool_calls": [_spawn(task="q")]}, {"text": "ok"}]
            llm = {"provider": "scripted", "subagent_scripts": {"q": quick},
                   "script": {"turns": turns}}  # fmt: skip
            _, run_id = await run(llm)
            parent = await client.get_workflow_handle(run_id).fetch_history()
            # The first completed activity is the turn setup; the LLM call is the second.
            completed = [e for e in parent.events
                         if e.HasField("activity_task_completed_event_attributes")]  # fmt: skip
            asked = _seconds(completed[1])
            child = await client.get_workflow_handle(f"{run_id}-sub-1").fetch_history()
            first = next(e for e in child.events
                         if e.HasField("workflow_task_started_event_attributes"))  # fmt: skip
            latencies.append(_seconds(first) - asked)
            plain = await run({"provider": "scripted", "script": {"turns": [{"text": "hi"}]}})
            history = await client.get_workflow_handle(plain[1]).fetch_history()
            begun = _seconds(history.events[0])
            task = next(e for e in history.events
                        if e.HasField("workflow_task_started_event_attributes"))  # fmt: skip
            starts.append(_seconds(task) - begun)
        results["spawn_to_running_ms"] = statistics.median(latencies) * 1000
        results["plain_start_ms"] = statistics.median(starts) * 1000

        fan = [_spawn(task="nap", label=str(i)) for i in range(FAN_OUT)]
        parallel = {"provider": "scripted", "subagent_scripts": {"nap": NAP},
                    "script": {"turns": [{"tool_calls": fan}, {"text": "ok"}]}}  # fmt: skip
        one_by_one = [{"tool_calls": [_spawn(action="run", task="nap")]}] * FAN_OUT
        sequential = {"provider": "scripted", "subagent_scripts": {"nap": NAP},
                      "script": {"turns": [*one_by_one, {"text": "ok"}]}}  # fmt: skip
        results["fan_out_s"] = (await run(parallel))[0]
        results["sequential_s"] = (await run(sequential))[0]
    results["ratio"] = results["sequential_s"] / results["fan_out_s"]
    results["latency_ratio"] = results["spawn_to_running_ms"] / results["plain_start_ms"]
    return results


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(measure(Path(tmp)))


if __name__ == "__main__":
    r = main()
    print(
        f"subagents: spawn-to-running p50 {r['spawn_to_running_ms']:.0f} ms "
        f"(x{r['latency_ratio']:.1f} a client's workflow start, {r['plain_start_ms']:.0f} ms); "
        f"{FAN_OUT} subagents of one 0.5 s call: at once {r['fan_out_s']:.2f} s, one by one "
        f"{r['sequential_s']:.2f} s (x{r['ratio']:.1f})"
    )
