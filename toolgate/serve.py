"""Runs the API and/or the worker in one asyncio loop until SIGINT or SIGTERM.

Shared by `toolgate dev`, `toolgate api` and `toolgate worker`. Signals are ours, not
uvicorn's: uvicorn re-raises a captured signal after it stops, which would kill the
process before `toolgate dev` stops its Postgres and Temporal children.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Generator

import uvicorn

from .api import create_app
from .config import Settings
from .services import build_services, connect_temporal
from .store import ping
from .worker import build_worker


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


async def serve(
    settings: Settings,
    *,
    api: bool,
    worker: bool,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Start the requested parts; return after a signal once everything has stopped."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    services = build_services(settings)
    try:
        await ping(services.engine)
        await services.start()
        client = await connect_temporal(settings, services.ring)
        tasks: list[asyncio.Task[None]] = []
        temporal_worker = build_worker(client, services) if worker else None
        if worker:
            await services.mcp.start()  # its MCP connections follow server changes
        if temporal_worker is not None:
            tasks.append(asyncio.create_task(temporal_worker.run(), name="worker"))
        server: _Server | None = None
        if api:
            config = uvicorn.Config(
                create_app(services, client),
                host=settings.api_host,
                port=settings.api_port,
                log_level=settings.log_level,
                lifespan="on",
            )
            server = _Server(config)
            tasks.append(asyncio.create_task(server.serve(), name="api"))
            while not server.started and not any(t.done() for t in tasks):
                await asyncio.sleep(0.05)
        if on_ready is not None and not any(t.done() for t in tasks):
            on_ready()
        stopper = asyncio.create_task(stop.wait())
        await asyncio.wait([stopper, *tasks], return_when=asyncio.FIRST_COMPLETED)
        stopper.cancel()
        if server is not None:
            server.should_exit = True
        if temporal_worker is not None and temporal_worker.is_running:
            await temporal_worker.shutdown()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result
    finally:
        await services.close()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
