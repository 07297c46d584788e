"""`make bench` keeps working: every benchmark runs here on a tiny size.

This asserts nothing about speed (figures belong in the README, measured by `make
bench`); it catches a benchmark that no longer runs against the current code.
"""

from __future__ import annotations

import asyncio

import pytest

from benchmarks import (
    agent_loop,
    mcp_bridge,
    pipeline_overhead,
    policy_resolution,
    shell_guard,
    subagents,
    team_board,
    temporal_throughput,
)


def test_pipeline_overhead_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline_overhead, "N", 20)
    result = asyncio.run(pipeline_overhead.main())
    assert result["gated_us"] > 0


def test_policy_resolution_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(policy_resolution, "N", 20)
    assert policy_resolution.main()["tools"] == 156


@pytest.mark.devserver
def test_temporal_throughput_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(temporal_throughput, "CALLS", 4)
    rates = temporal_throughput.main()
    assert set(rates) == {1, 16}


def test_shell_guard_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shell_guard, "EXEC_RUNS", 3)
    rates, latency, overhead = shell_guard.main()
    assert rates.lookalikes_total > 0 and latency["n"] > 0 and overhead["ratio"] > 0


@pytest.mark.devserver
def test_agent_loop_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_loop, "TURNS", 2)
    figures = agent_loop.main()
    assert figures["parallel_s"] > 0 and figures["per_iteration_ms"] > 0


@pytest.mark.devserver
def test_subagents_benchmark_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subagents, "SAMPLES", 1)
    figures = subagents.main()
    assert figures["spawn_to_running_ms"] > 0 and figures["ratio"] > 0


@pytest.mark.devserver
def test_team_board_benchmark_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(team_board, "ROUND_TRIPS", 8)
    monkeypatch.setattr(team_board, "BIG", 40)
    figures = team_board.main()
    assert figures["sequential_per_s"] > 0 and figures["search_hits"] > 0


@pytest.mark.devserver
def test_mcp_bridge_benchmark_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_bridge, "CALLS", 5)
    figures = mcp_bridge.main()
    assert figures["direct_ms"] > 0 and figures["gate_ms"] > 0 and figures["durable_ms"] > 0
