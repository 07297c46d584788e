"""Pipeline overhead: the gate's steps 2-9 in-process vs calling the tool directly.

In-memory ports stand in for Postgres here on purpose: this measures the gate's own
cost (lookup, policy, jsonschema, limiter, scrub, audit call), not the database.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.sample_tools import Echo  # noqa: E402
from tests.tools.memory_ports import MemoryAudit, MemoryPolicies, context, governance  # noqa: E402
from toolgate.tools import Registry, governed_call  # noqa: E402

N = 5000
ARGS = {"text": "total 48\ndrwxr-xr-x  5 root root 4096 Dec  1 02:48 src\n" * 20}


async def main() -> dict[str, float]:
    registry = Registry()
    tool = Echo()
    registry.register(tool)
    policies = MemoryPolicies()
    policies.allow("acme", "a1", "*")
    ctx = context(Path("/tmp/bench-ws"))
    gov = governance(registry, policies, MemoryAudit())

    start = time.perf_counter()
    for _ in range(N):
        await tool.execute(ctx, ARGS)
    direct = (time.perf_counter() - start) / N

    start = time.perf_counter()
    for _ in range(N):
        await governed_call(gov, ctx, "echo_text", ARGS)
    gated = (time.perf_counter() - start) / N
    return {"direct_us": direct * 1e6, "gated_us": gated * 1e6, "ratio": gated / direct}


if __name__ == "__main__":
    r = asyncio.run(main())
    print(
        f"pipeline: direct {r['direct_us']:.1f} us/call, governed {r['gated_us']:.1f} us/call, "
        f"overhead x{r['ratio']:.0f} (absolute added: {r['gated_us'] - r['direct_us']:.0f} us)"
    )
