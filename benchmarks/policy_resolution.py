"""Policy resolution: the spec §6 pipeline for an agent with 200 tools and 10 groups,
against simply listing the registry (what an unfiltered agent would get).

A call resolves once per (config, request) and then reuses the result; both costs are
shown. Config reads are not part of this: the gate reads an agent's config from an in-memory
cache that only LISTEN/NOTIFY invalidates (tests/store/test_config_cache.py shows no
Postgres statement on a cached read), so resolution is the whole hot-path cost.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.sample_tools import Stub  # noqa: E402
from toolgate.tools import (  # noqa: E402
    AgentConfig,
    PolicyInputs,
    PolicyRequest,
    Registry,
    SettingsLayers,
    ToolPolicy,
    explain,
    resolve,
)

N = 2000


def setup() -> tuple[Registry, PolicyInputs, PolicyRequest]:
    registry = Registry()
    named = "read_file write_file list_files edit exec web_search web_fetch memory_search"
    for name in [*named.split(), "memory_get", "spawn", "session_status"]:
        registry.register(Stub(name))
    for i in range(200 - len(registry)):
        registry.register(Stub(f"tool_{i:03d}", groups={f"g{i % 10}"}))
    groups = {f"team{g}": tuple(f"tool_{i:03d}" for i in range(g, 189, 10)) for g in range(10)}
    tenant = ToolPolicy(
        groups=groups, deny=("tool_007",), provider_allow={"openai": ("*",)},
        subagent_deny=("group:team3",),
    )  # fmt: skip
    agent = ToolPolicy(
        profile="full",
        allow=tuple(f"group:team{g}" for g in range(10)) + ("group:fs", "group:web", "exec"),
        deny=("exec", "group:team9"),
        also_allow=("spawn",),
    )
    inputs = PolicyInputs("acme", "a1", agent, tenant, ToolPolicy(deny=("tool_100",)))
    return registry, inputs, PolicyRequest(provider="openai", subagent_depth=1)


def main() -> dict[str, float]:
    registry, inputs, request = setup()
    resolution = resolve(inputs, registry, request)
    assert "spawn" not in resolution.tools and "tool_011" in resolution.tools

    start = time.perf_counter()
    for _ in range(N):
        listed = registry.names()
    listing = (time.perf_counter() - start) / N
    assert len(listed) == 200

    start = time.perf_counter()
    for _ in range(N):
        resolution = resolve(inputs, registry, request)
    resolving = (time.perf_counter() - start) / N

    config = AgentConfig(inputs, SettingsLayers())
    start = time.perf_counter()
    for _ in range(N):
        config.resolution(registry, request)
    memoised = (time.perf_counter() - start) / N

    start = time.perf_counter()
    for _ in range(N // 10):
        for name in registry.names():
            explain(resolution, registry, name)
    explaining = (time.perf_counter() - start) / (N // 10)
    return {
        "listing_us": listing * 1e6,
        "resolve_us": resolving * 1e6,
        "explain_all_us": explaining * 1e6,
        "ratio": resolving / listing,
        "memo_us": memoised * 1e6,
        "memo_ratio": memoised / listing,
        "tools": float(len(resolution.tools)),
    }


if __name__ == "__main__":
    r = main()
    print(
        f"policy: 200 tools, 10 groups -> {r['tools']:.0f} reach the LLM; "
        f"resolve {r['resolve_us']:.0f} us vs unfiltered listing {r['listing_us']:.1f} us "
        f"(x{r['ratio']:.0f}); per call (memoised on the cached config) "
        f"{r['memo_us']:.2f} us (x{r['memo_ratio']:.2f}); "
        f"explain for all 200 tools {r['explain_all_us']:.0f} us"
    )
