import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from toolgate.crypto import encrypted_data_converter
from toolgate.services import Services
from toolgate.worker import ContextPropagation, build_worker

from ..helpers import RING, toolgate_client
from ..wire_server import WireServer, http, wire_server

__all__ = ["WireServer", "http", "wire_server"]


@pytest.fixture
async def own_time_skipping_server() -> AsyncIterator[WorkflowEnvironment]:
    """A time-skipping server of this test alone, for tests whose subagents outlive
    their parent on an archival timer. The test server stops skipping time for good
    once a child workflow ends after its parent has closed, so those timers must not
    fire in the shared server of the session (docs/decisions.md)."""
    env = await WorkflowEnvironment.start_time_skipping(
        data_converter=encrypted_data_converter(RING),
        interceptors=[ContextPropagation()],
        test_server_existing_path=str(Path(sys.executable).parent / "temporal-test-server"),
    )
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture
def own_client(own_time_skipping_server: WorkflowEnvironment) -> Client:
    return toolgate_client(own_time_skipping_server)


@pytest.fixture
async def own_worker(own_client: Client, services: Services) -> AsyncIterator[Worker]:
    """A real tool worker on this test's own time-skipping server."""
    async with build_worker(own_client, services) as worker:
        yield worker


@pytest.fixture
def dev_client(temporal_dev_server: WorkflowEnvironment) -> Client:
    """A client of the real dev server, configured as production configures it."""
    return toolgate_client(temporal_dev_server)


@pytest.fixture
async def dev_worker(dev_client: Client, services: Services) -> AsyncIterator[Worker]:
    """A real tool worker on the dev server: for tests that cancel a lot. (The
    time-skipping test server sometimes never completes a workflow task that cancels
    an activity that was scheduled but not started yet.)"""
    async with build_worker(dev_client, services) as worker:
        yield worker
