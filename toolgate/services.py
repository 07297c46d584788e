"""Wiring: the real implementations behind the core's Protocols, built from Settings.

The API and the worker build the same Services, so what the API lists is what the
worker enforces.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from temporalio.client import Client
from temporalio.common import HeaderCodecBehavior

from .config import Settings
from .crypto import KeyRing, encrypted_data_converter
from .mcp import McpManager
from .store import (
    AgentLinkStore,
    AgentStore,
    CachedConfigSource,
    ChildRunStore,
    CliBinaryStore,
    CustomToolStore,
    KeyStore,
    McpGrantStore,
    McpServerStore,
    PostgresApprovals,
    PostgresAuditLog,
    PostgresConfigSource,
    PostgresRateLimiter,
    SecretStore,
    SessionStore,
    TeamStore,
    TenantStore,
    ToolSettingsStore,
    UserStore,
    create_engine,
    sessionmaker,
)
from .tools import Governance, RateLimit, Registry, Scrubber, ToolContext
from .tools.builtin import ExecLimits, FsLimits, builtin_registry
from .tools.builtin.sessions import session_tools
from .tools.builtin.team import TeamTasks
from .tools.shell import ShellGuard
from .worker.context import ContextPropagation
from .worker.session_directory import WorkerSessionDirectory
from .worker.team_boards import WorkerTeamBoards


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    ring: KeyRing
    tenants: TenantStore
    keys: KeyStore
    users: UserStore
    agents: AgentStore
    tool_settings: ToolSettingsStore
    secrets: SecretStore
    sessions_store: SessionStore
    session_directory: WorkerSessionDirectory
    team_boards: WorkerTeamBoards
    custom_tools: CustomToolStore
    cli_binaries: CliBinaryStore
    child_runs: ChildRunStore
    teams: TeamStore
    agent_links: AgentLinkStore
    mcp_servers: McpServerStore
    mcp_grants: McpGrantStore
    mcp: McpManager
    configs: CachedConfigSource
    audit: PostgresAuditLog
    approvals: PostgresApprovals
    registry: Registry
    scrubber: Scrubber
    governance: Governance

    async def start(self) -> None:
        """Check the key ring against stored data, then listen for config changes."""
        await self.secrets.verify_ring()
        await self.configs.start()

    async def close(self) -> None:
        await self.mcp.stop()
        await self.configs.stop()
        await self.engine.dispose()


def build_services(settings: Settings, registry: Registry | None = None) -> Services:
    """Everything the API and the worker need; ``registry`` defaults to the built-ins.

    Raises KeyRingError when TOOLGATE_SECRET_KEYS is missing or malformed.
    """
    ring = settings.key_ring()
    database_url = settings.require_database_url()
    engine = create_engine(database_url)
    sessions = sessionmaker(engine)
    audit = PostgresAuditLog(sessions)
    directory = WorkerSessionDirectory()
    boards = WorkerTeamBoards()
    if registry is None:
        registry = builtin_registry(
            FsLimits(max_file_bytes=settings.max_file_bytes),
            ExecLimits(max_output_bytes=settings.exec_max_output_bytes),
        )
        for tool in session_tools(directory):
            registry.register(tool)
        registry.register(TeamTasks(boards))
    shared = registry
    limit = RateLimit(per_minute=settings.rate_limit_per_minute, burst=settings.rate_limit_burst)
    # The config cache reads secrets (to scrub them) and secret writes invalidate it.
    secrets = SecretStore(sessions, ring, lambda change: configs.invalidate(change))
    custom_tools = CustomToolStore(sessions, ring, lambda change: configs.invalidate(change))
    cli_binaries = CliBinaryStore(sessions, ring, lambda change: configs.invalidate(change))
    mcp_servers = McpServerStore(sessions, ring, lambda change: configs.invalidate(change))
    mcp_grants = McpGrantStore(sessions, lambda change: configs.invalidate(change))
    configs = CachedConfigSource(
        PostgresConfigSource(sessions, secrets, custom_tools, cli_binaries, mcp_grants),
        database_url,
    )
    scrubber = Scrubber(settings.dynamic_scrub_values())
    mcp = McpManager(mcp_servers, mcp_grants, scrubber)
    configs.subscribe(mcp.on_change)

    async def registry_for(_ctx: ToolContext) -> Registry:
        return shared  # the gate overlays the agent's custom tools from its config

    approvals = PostgresApprovals(sessions, scrubber)
    governance = Governance(
        registry_for=registry_for,
        configs=configs,
        limiter=PostgresRateLimiter(sessions, limit),
        scrubber=scrubber,
        audit=audit,
        command_guard=ShellGuard(approvals),
        mcp=mcp,
    )
    return Services(
        settings=settings,
        engine=engine,
        sessions=sessions,
        ring=ring,
        tenants=TenantStore(sessions, configs.invalidate),
        keys=KeyStore(sessions),
        users=UserStore(sessions),
        agents=AgentStore(sessions, configs.invalidate),
        tool_settings=ToolSettingsStore(sessions, configs.invalidate),
        secrets=secrets,
        sessions_store=SessionStore(sessions),
        session_directory=directory,
        team_boards=boards,
        custom_tools=custom_tools,
        cli_binaries=cli_binaries,
        child_runs=ChildRunStore(sessions),
        teams=TeamStore(sessions),
        agent_links=AgentLinkStore(sessions),
        mcp_servers=mcp_servers,
        mcp_grants=mcp_grants,
        mcp=mcp,
        configs=configs,
        audit=audit,
        approvals=approvals,
        registry=registry,
        scrubber=scrubber,
        governance=governance,
    )


async def connect_temporal(settings: Settings, ring: KeyRing) -> Client:
    """A client that speaks pydantic, encrypts payloads, and carries the call context."""
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=encrypted_data_converter(ring),
        interceptors=[ContextPropagation()],
        # Headers (the call context: tenant, agent, user and chat ids) are encrypted
        # too. Every client and worker of a deployment must agree on this.
        header_codec_behavior=HeaderCodecBehavior.CODEC,
    )
