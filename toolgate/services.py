"""Wiring: the real implementations behind the core's Protocols, built from Settings.

The API and the worker build the same Services, so what the API lists is what the
worker enforces.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from .config import Settings
from .store import AgentStore, PostgresAuditLog, PostgresRateLimiter, create_engine, sessionmaker
from .tools import Governance, RateLimit, Registry, Scrubber, ToolContext
from .tools.builtin import FsLimits, builtin_registry
from .worker.context import ContextPropagation


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    agents: AgentStore
    audit: PostgresAuditLog
    registry: Registry
    governance: Governance

    async def close(self) -> None:
        await self.engine.dispose()


def build_services(settings: Settings, registry: Registry | None = None) -> Services:
    """Everything the API and the worker need; ``registry`` defaults to the built-ins."""
    engine = create_engine(settings.require_database_url())
    sessions = sessionmaker(engine)
    agents = AgentStore(sessions)
    audit = PostgresAuditLog(sessions)
    if registry is None:
        registry = builtin_registry(FsLimits(max_file_bytes=settings.max_file_bytes))
    shared = registry
    limit = RateLimit(per_minute=settings.rate_limit_per_minute, burst=settings.rate_limit_burst)

    async def registry_for(_ctx: ToolContext) -> Registry:
        return shared  # per-agent overlays (custom, MCP tools) arrive here later

    governance = Governance(
        registry_for=registry_for,
        policies=agents,
        limiter=PostgresRateLimiter(sessions, limit),
        scrubber=Scrubber(settings.dynamic_scrub_values()),
        audit=audit,
    )
    return Services(settings, engine, sessions, agents, audit, registry, governance)


async def connect_temporal(settings: Settings) -> Client:
    """A client that speaks pydantic and carries the call context in headers."""
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
        interceptors=[ContextPropagation()],
    )
