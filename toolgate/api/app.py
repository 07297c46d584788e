"""The FastAPI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from temporalio.client import Client

from .. import __version__
from ..services import Services
from .errors import install_error_handlers
from .routers import agents, audit, health, tools


def create_app(services: Services, temporal: Client) -> FastAPI:
    """An app bound to already-running services (the CLI and tests own their lifetime)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.services = services
        app.state.temporal = temporal
        yield

    app = FastAPI(title="toolgate", version=__version__, lifespan=lifespan)
    app.state.services = services
    app.state.temporal = temporal
    install_error_handlers(app)
    for module in (health, agents, tools, audit):
        app.include_router(module.router)
    return app
