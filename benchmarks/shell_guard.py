"""Shell deny groups: corpus rates, check-command latency, exec overhead.

The corpus (tests/tools/shell/corpus.py): every attack under every evasion, and the
harmless look-alikes. Latency is `check_command` per command over the whole corpus.
Exec overhead compares the governed exec (gate with in-memory ports + the shell
guard + the tool) with running the same command through subprocess directly.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.tools.memory_ports import MemoryAudit, MemoryPolicies, context, governance  # noqa: E402
from tests.tools.shell.corpus import Rates, attack_variants, lookalike_variants, measure  # noqa: E402
from toolgate.tools import governed_call  # noqa: E402
from toolgate.tools.builtin import builtin_registry  # noqa: E402
from toolgate.tools.shell import ShellGuard, check_command  # noqa: E402

EXEC_RUNS = int(os.environ.get("TOOLGATE_BENCH_EXEC_RUNS", "200"))


def latencies() -> dict[str, float]:
    commands = [c for _, _, c in attack_variants()] + list(lookalike_variants())
    timings = []
    for command in commands:
        start = time.perf_counter()
        check_command(command)
        timings.append((time.perf_counter() - start) * 1e6)
    timings.sort()
    return {
        "n": float(len(timings)),
        "p50_us": statistics.median(timings),
        "p99_us": timings[int(len(timings) * 0.99) - 1],
    }


async def exec_overhead(workspace: Path) -> dict[str, float]:
    policies = MemoryPolicies()
    policies.allow("acme", "a1", "exec")
    gov = governance(builtin_registry(), policies, MemoryAudit(), command_guard=ShellGuard())
    command = "echo hello"
    workspace.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for _ in range(EXEC_RUNS):
        subprocess.run(["/bin/sh", "-c", command], cwd=workspace, capture_output=True, check=True)
    direct = (time.perf_counter() - start) / EXEC_RUNS
    start = time.perf_counter()
    for i in range(EXEC_RUNS):
        ctx = context(workspace.parent, tool_call_id=f"r:{i}")
        result = await governed_call(gov, ctx, "exec", {"command": command})
        assert not result.is_error, result
    governed = (time.perf_counter() - start) / EXEC_RUNS
    return {"direct_ms": direct * 1e3, "governed_ms": governed * 1e3, "ratio": governed / direct}


def main() -> tuple[Rates, dict[str, float], dict[str, float]]:
    import tempfile

    rates = measure(lambda c: not check_command(c).allowed)
    with tempfile.TemporaryDirectory() as tmp:
        overhead = asyncio.run(exec_overhead(Path(tmp) / "acme" / "a1" / "_shared"))
    return rates, latencies(), overhead


if __name__ == "__main__":
    rates, lat, ex = main()
    blocked = sum(b for b, _ in rates.blocked.values())
    total = sum(t for _, t in rates.blocked.values())
    print(
        f"shell corpus: attacks blocked {blocked}/{total}, look-alikes blocked "
        f"{len(rates.lookalikes_blocked)}/{rates.lookalikes_total}"
    )
    for group, (b, t) in rates.blocked.items():
        print(f"  {group:22s} {b}/{t}")
    print(f"check-command: p50 {lat['p50_us']:.0f} us, p99 {lat['p99_us']:.0f} us "
          f"over {lat['n']:.0f} commands")  # fmt: skip
    print(f"exec: governed {ex['governed_ms']:.2f} ms vs subprocess {ex['direct_ms']:.2f} ms "
          f"(x{ex['ratio']:.2f})")  # fmt: skip
