"""The tenant-wide subagent count holds under concurrent admissions (as from several
workers at once), and agent links answer only what they allow."""

from __future__ import annotations

import asyncio
import uuid

from toolgate.services import Services
from toolgate.store import ChildRun, ChildRunStore, sessionmaker

from ..helpers import new_tenant


def _child(tenant: str, agent: str, n: int) -> ChildRun:
    return ChildRun(
        id=f"p-{uuid.uuid4().hex}-sub-{n}",
        tenant_id=tenant,
        kind="spawn",
        mode="async",
        parent_id="p",
        parent_session_id=None,
        agent_id=agent,
        target_agent_id=agent,
        label="",
        task="t",
        state="running",
        result="",
    )


async def test_twenty_concurrent_admissions_with_eight_slots_admit_exactly_eight(
    services: Services,
) -> None:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    agent = (await services.agents.create(tenant, "a", {})).id
    # One store (and pool) per "worker": the count is held by Postgres, not by memory.
    stores = [ChildRunStore(sessionmaker(services.engine)) for _ in range(4)]
    children = [_child(tenant, agent, n) for n in range(20)]
    admissions = await asyncio.gather(
        *(stores[n % 4].admit(child, 8) for n, child in enumerate(children))
    )
    assert sum(a.admitted for a in admissions) == 8
    assert len(await services.child_runs.running_ids(tenant, "spawn")) == 8
    # A retried admission of an admitted child is admitted again, not counted twice.
    first = next(c for c, a in zip(children, admissions, strict=True) if a.admitted)
    assert (await services.child_runs.admit(first, 8)).admitted
    # One ends: a slot comes free for the next.
    await services.child_runs.finish(first.id, "completed", "done")
    late = _child(tenant, agent, 99)
    assert (await services.child_runs.admit(late, 8)).admitted
    assert not (await services.child_runs.admit(_child(tenant, agent, 100), 8)).admitted


async def test_links_allow_only_their_direction_and_modes(services: Services) -> None:
    tenant, other = new_tenant(), new_tenant()
    for t in (tenant, other):
        await services.tenants.create(t)
    a = (await services.agents.create(tenant, "a", {})).id
    b = (await services.agents.create(tenant, "b", {})).id
    c = (await services.agents.create(tenant, "c", {})).id
    foreign = (await services.agents.create(other, "b", {})).id
    links = services.agent_links
    await links.create(tenant, a, b, "outbound", ["sync"])
    await links.create(tenant, c, a, "bidirectional", ["sync", "async"])
    assert await links.delegation_target(tenant, a, "b", "sync") == b
    assert await links.delegation_target(tenant, a, b, "sync") == b
    assert await links.delegation_target(tenant, a, "b", "async") is None  # mode
    assert await links.delegation_target(tenant, b, "a", "sync") is None  # direction
    assert await links.delegation_target(tenant, a, "c", "async") == c  # bidirectional
    assert await links.delegation_target(tenant, a, foreign, "sync") is None  # other tenant
    assert await links.delegation_target(other, foreign, "a", "sync") is None
    assert await links.delegation_target(tenant, a, "not-an-agent", "sync") is None
