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

from temporalio.client import Client  # noqa: E402
from temporalio.common import HeaderCodecBehavior  # noqa: E402
from temporalio.testing import WorkflowEnvironment  # noqa: E402

from tests.sample_tools import Nap  # noqa: E402
from toolgate.activities.agent import AgentRef  # noqa: E402
from toolgate.config import Settings  # noqa: E402
from toolgate.crypto import KeyRing, encrypted_data_converter, generate_key  # noqa: E402
from toolgate.devstack import EmbeddedPostgres, free_port, temporal_binary  # noqa: E402
from toolgate.services import build_services  # noqa: E402
from toolgate.store import upgrade  # noqa: E402
from toolgate.tools import CallContext  # noqa: E402
from toolgate.tools.builtin import builtin_registry  # noqa: E402
from toolgate.worker import ContextPropagation, build_worker, call_context  # noqa: E402
from toolgate.workflows import AgentRunInput, AgentRunWorkflow  # noqa: E402

FAN_OUT = 8
TURNS = int(os.environ.get("TOOLGATE_BENCH_TURNS", "10"))


async def measure(tmp: Path) -> dict[str, float]:
    pg = EmbeddedPostgres(tmp / "pg", free_port())
    url = pg.start()
    upgrade(url)
    keys = generate_key("bench")
    env = await WorkflowEnvironment.start_local(
        data_converter=encrypted_data_converter(KeyRing.parse(keys)),
        interceptors=[ContextPropagation()], dev_server_existing_path=str(temporal_binary()),
        ui=False, dev_server_log_level="error",
    )  # fmt: skip
    client = Client(**{**env.client.config(), "header_codec_behavior": HeaderCodecBehavior.CODEC})
    registry = builtin_registry()
    registry.register(Nap())
    settings = Settings(
        database_url=url,
        workspace_root=tmp / "ws",
        task_queue="bench-loop",
        rate_limit_per_minute=1e9,
        rate_limit_burst=10**9,
        secret_keys=keys,
    )
    services = build_services(settings, registry)
    await services.start()
    await services.tenants.ensure("bench")
    results: dict[str, float] = {}
    try:
        async with build_worker(client, services):

            async def run(llm: dict[str, Any]) -> float:
                agent = await services.agents.create("bench", f"a{uuid.uuid4().hex[:6]}", {})
                await services.agents.set_other_config("bench", agent.id, "llm", llm)
                ref = AgentRef(tenant_id="bench", agent_id=agent.id)
                start = time.perf_counter()
                with call_context(CallContext(tenant_id="bench", agent_id=agent.id)):
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
            long = await run({"provider": "scripted",
                              "script": {"turns": [*turns, {"text": "ok"}]}})  # fmt: skip
            results["per_iteration_ms"] = long / (TURNS + 1) * 1000
    finally:
        await services.close()
        await env.shutdown()
        pg.stop()
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
