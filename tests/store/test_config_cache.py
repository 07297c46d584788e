"""The config cache: no Postgres on the hot path, LISTEN/NOTIFY invalidation, and
read-through whenever the listener is not connected."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event, text

from toolgate.config import Settings
from toolgate.services import Services, build_services

from ..helpers import new_agent, new_tenant


@contextmanager
def counting_queries(services: Services) -> Iterator[list[str]]:
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    engine = services.engine.sync_engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


async def _eventually(predicate, what: str) -> None:  # type: ignore[no-untyped-def]
    """Wait (bounded) for something another connection causes; not a timing assertion."""
    for _ in range(500):
        if await predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def test_a_cached_config_does_not_touch_postgres(services: Services) -> None:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    agent = await new_agent(services, tenant, {"profile": "coding"})
    assert services.configs.listening
    first = await services.configs.agent_config(tenant, agent)
    with counting_queries(services) as statements:
        for _ in range(100):
            again = await services.configs.agent_config(tenant, agent)
    assert statements == [] and again is first


async def test_a_write_here_is_seen_at_once_and_elsewhere_after_the_notification(
    services: Services, settings: Settings
) -> None:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    agent = await new_agent(services, tenant, {})
    other = build_services(settings)  # another process, as far as the caches know
    await other.start()
    try:
        assert (await other.configs.agent_config(tenant, agent)).policy.agent.deny == ()
        await services.agents.set_policy(tenant, agent, {"deny": ["exec"]})
        mine = await services.configs.agent_config(tenant, agent)
        assert mine.policy.agent.deny == ("exec",)  # no wait: the writer hears itself

        async def other_sees_it() -> bool:
            return (await other.configs.agent_config(tenant, agent)).policy.agent.deny == ("exec",)

        await _eventually(other_sees_it, "the other cache dropping the old policy")
        await services.tool_settings.set_platform("read_file", {"k": 1})
        try:

            async def other_sees_global() -> bool:
                cfg = await other.configs.agent_config(tenant, agent)
                return cfg.settings.merged("read_file") == ({"k": 1}, "global")

            await _eventually(other_sees_global, "a global change reaching every tenant")
        finally:
            await services.tool_settings.set_platform("read_file", None)
    finally:
        await other.close()


async def test_without_its_listener_the_cache_reads_through(services: Services) -> None:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    agent = await new_agent(services, tenant, {})
    await services.configs.agent_config(tenant, agent)
    async with services.engine.connect() as conn:
        await conn.execute(text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE query LIKE 'LISTEN toolgate_config%' AND pid <> pg_backend_pid()"))  # fmt: skip
        await conn.commit()

    async def disconnected() -> bool:
        return not services.configs.listening

    await _eventually(disconnected, "the listener noticing its connection is gone")
    with counting_queries(services) as statements:
        await services.configs.agent_config(tenant, agent)
    assert statements, "while not listening, every read must go to Postgres"

    async def reconnected() -> bool:
        return services.configs.listening

    await _eventually(reconnected, "the listener reconnecting")
    await services.configs.agent_config(tenant, agent)
    with counting_queries(services) as statements:
        await services.configs.agent_config(tenant, agent)
    assert statements == []


async def test_an_unknown_agent_is_none_and_not_cached(services: Services) -> None:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    assert await services.configs.agent_config(tenant, "not-a-uuid") is None
    missing = "00000000-0000-0000-0000-000000000000"
    assert await services.configs.agent_config(tenant, missing) is None
    with counting_queries(services) as statements:
        assert await services.configs.agent_config(tenant, missing) is None
    assert statements  # asked again, not remembered
