"""A team's task board on the Temporal dev server: claim/complete round trips per
second, and list and search latency on a board of 5,000 tasks.

Round trips: Workflow Updates from a client, as the ``team_tasks`` tool sends them;
one agent in turn, then 8 agents at once on their own tasks. The 5,000 tasks are
posted in batches of 250 (``create`` with ``tasks``); listing and search read the
Postgres mirror the board writes, as the REST API and ``search`` do.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.stack import TENANT, bench_stack  # noqa: E402
from toolgate.tools.team import BoardAction  # noqa: E402
from toolgate.workflows import TeamBoardInput, TeamBoardWorkflow  # noqa: E402

ROUND_TRIPS = int(os.environ.get("TOOLGATE_BENCH_BOARD_TASKS", "100"))
BIG = int(os.environ.get("TOOLGATE_BENCH_BOARD_BIG", "5000"))
AGENTS = 8
WORDS = ["deploy", "docs", "tests", "release", "review", "api", "billing", "search"]


async def measure(tmp: Path) -> dict[str, float]:
    results: dict[str, float] = {}
    async with bench_stack(tmp, "bench-team") as (client, services):
        lead = await services.agents.create(TENANT, "lead", {})
        mates = [await services.agents.create(TENANT, f"mate{i}", {}) for i in range(AGENTS)]
        team = await services.teams.create(TENANT, "bench", lead.id,
                                           [(m.id, "worker") for m in mates])  # fmt: skip
        # No member sessions: the figures are the board's own, without starting the
        # lead's runs for every "teammate:" notice.
        start = TeamBoardInput(tenant_id=TENANT, team_id=team.id, lead=lead.id,
                               members=team.roles(), sessions={})  # fmt: skip
        handle = await client.start_workflow(TeamBoardWorkflow.run, start, id=team.board_id,
                                             task_queue="bench-team")  # fmt: skip

        async def act(actor: str, action: str, **kw: Any) -> Any:
            move = BoardAction(action=action, actor=actor, **kw)  # type: ignore[arg-type]
            return (await handle.execute_update(TeamBoardWorkflow.act, move)).result

        async def post(count: int) -> list[str]:
            ids: list[str] = []
            for start in range(0, count, 250):
                batch = [{"title": f"{WORDS[(start + n) % len(WORDS)]} task {start + n}",
                          "description": f"item {start + n}"}
                         for n in range(min(250, count - start))]  # fmt: skip
                ids += [t["id"] for t in await act(lead.id, "create", tasks=batch)]
            return ids

        ids = await post(ROUND_TRIPS)
        began = time.perf_counter()
        for task_id in ids:
            await act(mates[0].id, "claim", task_id=task_id)
            await act(mates[0].id, "complete", task_id=task_id, result="ok")
        results["sequential_per_s"] = 2 * len(ids) / (time.perf_counter() - began)

        ids = await post(ROUND_TRIPS)
        shares = [ids[n::AGENTS] for n in range(AGENTS)]

        async def work(agent: str, mine: list[str]) -> None:
            for task_id in mine:
                await act(agent, "claim", task_id=task_id)
                await act(agent, "complete", task_id=task_id, result="ok")

        began = time.perf_counter()
        await asyncio.gather(*(work(m.id, s) for m, s in zip(mates, shares, strict=True)))
        results["concurrent_per_s"] = 2 * len(ids) / (time.perf_counter() - began)

        began = time.perf_counter()
        await post(BIG - 2 * ROUND_TRIPS)
        results["post_per_s"] = (BIG - 2 * ROUND_TRIPS) / (time.perf_counter() - began)
        while len(await services.teams.tasks(team.id, limit=BIG + 10)) < BIG:
            await asyncio.sleep(0.1)  # the mirror catches up (waiting, not timing)

        def median_ms(samples: list[float]) -> float:
            return statistics.median(samples) * 1000

        async def timed(call: Any) -> float:
            start = time.perf_counter()
            await call
            return time.perf_counter() - start

        pages = [await timed(services.teams.tasks(team.id, "pending", limit=100, offset=2000))
                 for _ in range(20)]  # fmt: skip
        searches = [await timed(services.teams.tasks(team.id, query=WORDS[n % len(WORDS)],
                                                     limit=50)) for n in range(20)]  # fmt: skip
        results["list_ms"] = median_ms(pages)
        results["search_ms"] = median_ms(searches)
        found = await services.teams.tasks(team.id, query="billing", limit=1000)
        results["search_hits"] = len(found)
        tasks = {t.id: t for t in await handle.query(TeamBoardWorkflow.tasks)}
        carried = start.model_copy(update={"tasks": tasks}).model_dump_json()
        results["state_bytes_per_task"] = len(carried) / len(tasks)
    return results


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(measure(Path(tmp)))


if __name__ == "__main__":
    r = main()
    print(
        f"team board: claim/complete {r['sequential_per_s']:.0f} updates/s one agent, "
        f"{r['concurrent_per_s']:.0f}/s with {AGENTS} agents "
        f"(x{r['concurrent_per_s'] / r['sequential_per_s']:.1f}); posting "
        f"{r['post_per_s']:.0f} tasks/s in batches of 250; with {BIG} tasks: list a page of "
        f"100 {r['list_ms']:.1f} ms, search {r['search_ms']:.1f} ms "
        f"({r['search_hits']:.0f} hits for one word); state {r['state_bytes_per_task']:.0f} B/task"
    )
