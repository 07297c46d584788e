"""The cost of an MCP tool call through toolgate, against calling the same server
directly with the SDK's client, on one machine in one run.

The server is the example notes server over stdio. Three ways to call ``list_notes``:

* direct: the SDK's ClientSession on a session of its own;
* gate: toolgate's governed call in-process (policy, schema, rate limit in Postgres,
  the grant re-read from Postgres, scrub, audit row) over the worker's pooled session;
* durable: a ToolCall workflow on the Temporal dev server, as ``POST /v1/tools/.../invoke``
  and toolgate's own MCP endpoint run it: the same gate inside a Temporal activity.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from benchmarks.stack import TENANT, bench_stack  # noqa: E402
from toolgate.api.invoking import invoke  # noqa: E402
from toolgate.mcp import announced, probe  # noqa: E402
from toolgate.tools import CallContext, McpServerConfig, ToolContext, governed_call  # noqa: E402

CALLS = int(os.environ.get("TOOLGATE_BENCH_MCP_CALLS", "200"))
NOTES = Path(__file__).resolve().parents[1] / "examples" / "mcp" / "notes_server.py"


async def _median_ms(call: Callable[[], Awaitable[object]], n: int) -> float:
    for _ in range(min(10, n)):  # warm up: connections, caches, imports
        await call()
    samples = []
    for _ in range(n):
        began = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - began)
    return statistics.median(samples) * 1000


async def measure(tmp: Path) -> dict[str, float]:
    config = McpServerConfig(name="notes", command=sys.executable, args=[str(NOTES)])
    params = StdioServerParameters(command=config.command, args=config.args)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        direct = await _median_ms(lambda: session.call_tool("list_notes", {}), CALLS)

    async with bench_stack(tmp, "bench-mcp") as (client, services):
        agent = await services.agents.create(TENANT, "mcp-bench", {"profile": "minimal",
                                             "also_allow": ["group:mcp"]})  # fmt: skip
        server = await services.mcp_servers.create(TENANT, config)
        found = announced(config.name, config.prefix, await probe(config))
        await services.mcp_servers.record_tools(server.id, found.tools, found.warnings)
        await services.mcp_grants.grant(TENANT, server.id, "agent", agent.id, None, [])

        def ctx() -> ToolContext:
            return ToolContext(TENANT, agent.id, tmp / "ws", tool_call_id=f"r:{uuid.uuid4().hex}")

        async def gated() -> None:
            result = await governed_call(services.governance, ctx(), "mcp_notes_list_notes", {})
            assert not result.is_error, result.for_llm

        gate = await _median_ms(gated, CALLS)
        config_ = await services.configs.agent_config(TENANT, agent.id)
        assert config_ is not None
        descriptor = config_.registry(services.registry).describe("mcp_notes_list_notes")
        context = CallContext(tenant_id=TENANT, agent_id=agent.id)

        async def durable() -> None:
            done = await invoke(services, client, agent, descriptor, {}, context,
                                uuid.uuid4().hex)  # fmt: skip
            assert not getattr(done.outcome, "is_error", True)

        workflow = await _median_ms(durable, max(CALLS // 4, 5))
    return {"direct_ms": direct, "gate_ms": gate, "durable_ms": workflow}


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(measure(Path(tmp)))


if __name__ == "__main__":
    r = main()
    print(
        f"mcp call (list_notes, stdio, median): direct SDK client {r['direct_ms']:.2f} ms; "
        f"through toolgate's gate {r['gate_ms']:.2f} ms (x{r['gate_ms'] / r['direct_ms']:.1f}); "
        f"as a durable ToolCall workflow {r['durable_ms']:.1f} ms "
        f"(x{r['durable_ms'] / r['direct_ms']:.0f})"
    )
