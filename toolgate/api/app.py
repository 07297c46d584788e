"""The FastAPI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.routing import Route
from temporalio.client import Client

from .. import __version__
from ..services import Services
from .errors import install_error_handlers
from .mcp_endpoint import McpEndpoint
from .routers import (
    agents,
    audit,
    cli_binaries,
    codec,
    custom_tools,
    health,
    keys,
    mcp_access,
    mcp_servers,
    policy,
    secrets,
    sessions,
    shell,
    subagents,
    teams,
    tenants,
    tool_settings,
    tools,
    users,
)

ROUTERS = (
    health,
    tenants,
    keys,
    users,
    agents,
    policy,
    tool_settings,
    shell,
    custom_tools,
    cli_binaries,
    secrets,
    tools,
    sessions,
    subagents,
    teams,
    mcp_servers,
    mcp_access,
    audit,
    codec,
)


def create_app(services: Services, temporal: Client) -> FastAPI:
    """An app bound to already-running services (the CLI and tests own their lifetime)."""

    mcp = McpEndpoint(services, temporal)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.services = services
        app.state.temporal = temporal
        yield
        await mcp.aclose()

    app = FastAPI(
        title="toolgate",
        version=__version__,
        lifespan=lifespan,
        description=(
            "Governed, durable tools for AI agents. Every route except /healthz needs an "
            "API key: `Authorization: Bearer tgk_...`. Errors are JSON "
            '`{"code", "message"}` with stable codes (docs/api.md).'
        ),
    )
    app.state.services = services
    app.state.temporal = temporal
    install_error_handlers(app)
    origins = [o.strip() for o in services.settings.codec_cors_origins.split(",") if o.strip()]
    app.add_middleware(
        CORSMiddleware,  # the Temporal Web UI calls the codec endpoints from the browser
        allow_origins=origins,
        allow_methods=["POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "X-Namespace", "X-API-Key"],
        allow_credentials=True,
    )
    for module in ROUTERS:
        app.include_router(module.router)
    # toolgate as an MCP server (streamable HTTP): an agent's tools for any MCP client
    app.router.routes.append(Route("/mcp/{agent_id}", mcp, methods=["GET", "POST", "DELETE"]))
    app.state.mcp = mcp
    return app
