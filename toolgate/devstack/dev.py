"""`toolgate dev`: the whole stack on one machine, in one data directory.

Order: check every port first (one clear line on a clash), start Postgres, start the
Temporal dev server, migrate, then run worker and API until a signal; children are
stopped in reverse order however we leave.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path

import typer

from ..config import Settings
from ..serve import serve
from ..store import upgrade
from .bootstrap import dev_key_ring, ensure_master_key
from .ports import PortNeed, ensure_free
from .postgres import EmbeddedPostgres
from .temporal import TemporalDevServer

HOST = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class DevOptions:
    data_dir: Path
    api_port: int
    temporal_port: int
    ui_port: int
    pg_port: int


def run_dev(options: DevOptions) -> None:
    ensure_free(
        HOST,
        [
            PortNeed(options.api_port, "REST API", "--api-port"),
            PortNeed(options.temporal_port, "Temporal frontend", "--temporal-port"),
            PortNeed(options.ui_port, "Temporal Web UI", "--ui-port"),
            PortNeed(options.pg_port, "Postgres", "--pg-port"),
        ],
    )
    data = options.data_dir.resolve()
    data.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(level="WARNING", format="%(levelname)s %(name)s: %(message)s")
    secret_keys = dev_key_ring(data)
    codec_token = secrets.token_urlsafe(24)
    postgres = EmbeddedPostgres(data / "postgres", options.pg_port, HOST)
    temporal = TemporalDevServer(
        data / "temporal" / "temporal.db",
        options.temporal_port,
        options.ui_port,
        HOST,
        codec_endpoint=f"http://{HOST}:{options.api_port}/v1/codec/ui/{codec_token}",
    )
    try:
        typer.echo(f"starting Postgres (data in {postgres.data_dir}) ...")
        database_url = postgres.start()
        typer.echo("starting the Temporal dev server ...")
        temporal.start()
        upgrade(database_url)
        settings = Settings(
            data_dir=data,
            database_url=database_url,
            temporal_address=temporal.address,
            api_host=HOST,
            api_port=options.api_port,
            log_level="warning",
            secret_keys=secret_keys,
            codec_ui_token=codec_token,
            codec_cors_origins=f"http://{HOST}:{options.ui_port},http://localhost:{options.ui_port}",
        )
        master_key = asyncio.run(ensure_master_key(settings, data))

        def ready() -> None:
            typer.echo(
                "\ntoolgate is running\n"
                f"  REST API      http://{HOST}:{options.api_port}   (docs: /docs)\n"
                f"  Temporal UI   {temporal.ui_url}\n"
                f"  Temporal      {temporal.address}\n"
                f"  Postgres      {database_url}\n"
                f"  data          {data}\n"
                f"  master key    {master_key}\n"
                "Press Ctrl-C to stop."
            )

        asyncio.run(serve(settings, api=True, worker=True, on_ready=ready))
        typer.echo("stopping ...")
    finally:
        temporal.stop()
        postgres.stop()
    typer.echo("stopped")
