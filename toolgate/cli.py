"""The `toolgate` command: dev, api, worker, migrate, scrub, and key management."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Annotated

import httpx
import typer

from .config import Settings
from .crypto import KeyRingError, generate_key
from .store import DatabaseUnavailable

app = typer.Typer(
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, help=__doc__
)


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


def _check_database(settings: Settings) -> None:
    from .store import create_engine, ping

    async def check() -> None:
        engine = create_engine(settings.require_database_url())
        try:
            await ping(engine)
        finally:
            await engine.dispose()

    try:
        asyncio.run(check())
    except DatabaseUnavailable as exc:
        raise _fail(str(exc)) from None


@app.command()
def dev(
    data_dir: Annotated[
        Path, typer.Option(envvar="TOOLGATE_DATA_DIR", help="Where all state lives")
    ] = Path(".toolgate"),
    api_port: Annotated[int, typer.Option(envvar="TOOLGATE_API_PORT")] = 8000,
    temporal_port: Annotated[int, typer.Option(envvar="TOOLGATE_DEV_TEMPORAL_PORT")] = 7233,
    ui_port: Annotated[int, typer.Option(envvar="TOOLGATE_DEV_UI_PORT")] = 8233,
    pg_port: Annotated[int, typer.Option(envvar="TOOLGATE_DEV_PG_PORT")] = 5433,
) -> None:
    """Embedded stack: Postgres, the Temporal dev server, migrations, worker and API."""
    from .devstack.dev import DevOptions, run_dev

    options = DevOptions(data_dir, api_port, temporal_port, ui_port, pg_port)
    try:
        run_dev(options)
    except RuntimeError as exc:
        raise _fail(str(exc)) from None
    _exit_cleanly()


@app.command()
def api() -> None:
    """Run the REST API against TOOLGATE_DATABASE_URL and TOOLGATE_TEMPORAL_ADDRESS."""
    _run(api=True, worker=False)


@app.command()
def worker() -> None:
    """Run a tool worker against TOOLGATE_DATABASE_URL and TOOLGATE_TEMPORAL_ADDRESS."""
    _run(api=False, worker=True)


def _run(*, api: bool, worker: bool) -> None:
    from .serve import serve

    settings = Settings()
    _logging(settings.log_level)
    _check_ring(settings)
    _check_database(settings)
    try:
        asyncio.run(serve(settings, api=api, worker=worker))
    except (RuntimeError, KeyRingError) as exc:  # Temporal unreachable, a wrong key, ...
        raise _fail(str(exc)) from None
    _exit_cleanly()


def _exit_cleanly() -> None:
    """Leave without interpreter finalization once everything has stopped.

    The Temporal SDK's native runtime keeps threads that can call into Python while
    the interpreter finalizes, which aborts the process (SIGABRT, "PyGILState_Release")
    now and then on an otherwise clean shutdown. Every resource of ours is closed by
    now (worker shut down, API stopped, database pool disposed), so exit directly.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(0)


def _check_ring(settings: Settings) -> None:
    try:
        settings.key_ring()
    except KeyRingError as exc:
        raise _fail(str(exc)) from None


@app.command()
def migrate() -> None:
    """Apply database migrations to TOOLGATE_DATABASE_URL."""
    from .store import upgrade

    settings = Settings()
    _check_database(settings)
    upgrade(settings.require_database_url())
    typer.echo("database is at the latest schema")


@app.command()
def scrub() -> None:
    """Read text on stdin, write it to stdout with credentials replaced by [REDACTED]."""
    from .tools import Scrubber

    scrubber = Scrubber(Settings().dynamic_scrub_values())
    sys.stdout.write(scrubber.scrub(sys.stdin.read()))


@app.command("gen-key")
def gen_key(
    key_id: Annotated[str, typer.Option(help="Id of the new key (default: random)")] = "",
) -> None:
    """Print a new AES-256 key ring entry for TOOLGATE_SECRET_KEYS."""
    typer.echo(generate_key(key_id))


@app.command("rotate-key")
def rotate_key() -> None:
    """Re-encrypt every stored secret with the first key of TOOLGATE_SECRET_KEYS.

    Put the new key first and keep the old one after it; when this has run, the old
    key is needed only for workflow histories written before the rotation.
    """
    from .services import build_services

    settings = Settings()
    _check_ring(settings)
    _check_database(settings)

    async def rotate() -> int:
        services = build_services(settings)
        try:
            await services.secrets.verify_ring()
            return await services.secrets.rotate()
        finally:
            await services.close()

    try:
        count = asyncio.run(rotate())
    except KeyRingError as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"re-encrypted {count} secret(s) with key {settings.key_ring().active!r}")


@app.command("create-key")
def create_key(
    tenant: Annotated[str, typer.Option(help="Tenant the key belongs to")] = "master",
    role: Annotated[str, typer.Option(help="master, admin or user")] = "master",
    label: Annotated[str, typer.Option(help="A note to recognise the key by")] = "cli",
) -> None:
    """Create an API key straight in the database (bootstrap: the first master key)."""
    from .services import build_services
    from .store import MASTER_TENANT, Role

    if role not in {r.value for r in Role}:
        raise _fail(f"unknown role {role!r}; use master, admin or user", 2)
    if role == Role.MASTER.value and tenant != MASTER_TENANT:
        raise _fail("master keys belong to the master tenant", 2)
    settings = Settings()
    _check_ring(settings)
    _check_database(settings)

    async def create() -> str | None:
        services = build_services(settings)
        try:
            if await services.tenants.get(tenant) is None:
                return None
            _key, plaintext = await services.keys.create(tenant, Role(role), label)
            return plaintext
        finally:
            await services.close()

    plaintext = asyncio.run(create())
    if plaintext is None:
        raise _fail(f"no tenant {tenant!r}; create it with POST /v1/tenants")
    typer.echo(plaintext)


@app.command("check-command")
def check_command_cli(
    command: Annotated[str, typer.Argument(help="The shell command to judge")],
    off: Annotated[
        list[str] | None,
        typer.Option("--off", help="Treat this deny group as switched off (repeatable)"),
    ] = None,
) -> None:
    """Print the guard's JSON verdict on a command: {allowed, group, reason, ...}.

    The same code path as the exec tool's gate, for operators testing their toggles.
    Exit code 0 when allowed, 1 when denied or waiting for approval, 2 on bad input.
    """
    import json

    from .tools.shell import DENY_GROUPS, check_command

    unknown = [g for g in off or [] if g not in DENY_GROUPS]
    if unknown:
        raise _fail(f"unknown deny group {unknown[0]!r}; use one of {', '.join(DENY_GROUPS)}", 2)
    verdict = check_command(command, dict.fromkeys(off or [], False))
    typer.echo(json.dumps(verdict.as_json()))
    raise typer.Exit(0 if verdict.allowed else 1)


@app.command("chat")
def chat_command(
    agent: Annotated[str, typer.Option("--agent", help="The agent to talk to")],
    api: Annotated[str, typer.Option(envvar="TOOLGATE_API_URL")] = "http://127.0.0.1:8000",
    key: Annotated[str, typer.Option(envvar="TOOLGATE_API_KEY", help="An API key")] = "",
    session: Annotated[str | None, typer.Option(help="Continue this session")] = None,
) -> None:
    """Talk to an agent in the terminal; tool calls are shown as they happen."""
    from .chat import ChatError, chat

    if not key:
        raise _fail("set TOOLGATE_API_KEY (or --key) to an API key of the agent's tenant", 2)
    try:
        chat(api, key, agent, session)
    except ChatError as exc:
        raise _fail(str(exc)) from None
    except httpx.HTTPError as exc:
        raise _fail(f"cannot reach the API at {api}: {exc}") from None
