"""Runs every benchmark in one process run; `make bench` calls this."""

from __future__ import annotations

import runpy
from pathlib import Path

HERE = Path(__file__).parent

for name in (
    "corpora",
    "pipeline_overhead",
    "policy_resolution",
    "shell_guard",
    "scrubber_throughput",
    "temporal_throughput",
    "agent_loop",
    "subagents",
    "team_board",
    "mcp_bridge",
):
    runpy.run_path(str(HERE / f"{name}.py"), run_name="__main__")
