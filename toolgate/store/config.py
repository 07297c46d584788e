"""The ConfigSource of the gate: an agent's policy layers and settings tiers.

``PostgresConfigSource`` reads them in one session. ``CachedConfigSource`` keeps them
in memory per agent and drops them when Postgres announces a change (LISTEN/NOTIFY),
so the hot path of a tool call does not touch Postgres, and a change made through
any API process reaches every worker by the next agent turn, without a restart.

The cache is only trusted while its listener is connected: while it is down (start,
a dropped connection) every read goes to Postgres, and a reconnect clears the cache,
because notifications sent in between were lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import psycopg
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..tools import AgentConfig, PolicyInputs, SettingsLayers, ToolPolicy
from ..tools.cli import KeywordRule
from ..tools.shell import merge_deny_groups
from .cli_binaries import CliBinaryStore
from .custom_tools import CustomToolStore
from .ids import parse_uuid
from .mcp_grants import McpGrantStore
from .models import AgentRow, BuiltinToolRow, PlatformConfigRow, TenantRow, TenantToolConfigRow
from .notify import ALL_TENANTS, CHANNEL, ChangeHook, ConfigChange, libpq_dsn
from .secrets import SecretStore

log = logging.getLogger(__name__)
MIN_SCRUB_LENGTH = 6
"""Shorter secret values are not scrubbed as literals: they would shred ordinary text."""


class PostgresConfigSource:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        secrets: SecretStore,
        custom_tools: CustomToolStore,
        cli_binaries: CliBinaryStore,
        mcp_grants: McpGrantStore,
    ) -> None:
        self._sessions = sessions
        self._mcp_grants = mcp_grants
        self._secrets = secrets
        self._custom_tools = custom_tools
        self._cli_binaries = cli_binaries
        self.loads = 0
        """How many times config was read from Postgres (tests and benchmarks)."""

    async def agent_config(self, tenant_id: str, agent_id: str) -> AgentConfig | None:
        key = parse_uuid(agent_id)
        if key is None:
            return None
        self.loads += 1
        async with self._sessions() as session:
            agent = await session.get(AgentRow, key)
            if agent is None or agent.tenant_id != tenant_id:
                return None
            tenant = await session.get(TenantRow, tenant_id)
            platform = await session.get(PlatformConfigRow, "tool_policy")
            platform_deny = await session.get(PlatformConfigRow, "shell_deny_groups")
            custom = await self._custom_tools.for_agent(session, tenant_id, key)
            binaries = await self._cli_binaries.for_tenant(session, tenant_id)
            mcp_servers = await self._mcp_grants.for_agent(session, tenant_id, key)
            allowlist = await session.get(PlatformConfigRow, "command_keyword_allowlist")
            tenant_settings = await session.scalars(
                select(TenantToolConfigRow).where(TenantToolConfigRow.tenant_id == tenant_id)
            )
            tenant_tiers = {r.tool_name: dict(r.settings) for r in tenant_settings}
            global_tiers = {r.name: dict(r.settings) for r in await session.scalars(
                select(BuiltinToolRow))}  # fmt: skip
        secrets = list((await self._secrets.values(tenant_id)).values())
        secrets += [v.value for d in custom for v in d.env.values() if v.kind == "sensitive"]
        secrets += [v for b in binaries.values() for v in b.env.values()]
        return AgentConfig(
            policy=PolicyInputs(
                tenant_id=tenant_id,
                agent_id=agent_id,
                agent=ToolPolicy.from_json(agent.tool_policy),
                tenant=ToolPolicy.from_json(tenant.tool_policy if tenant else None),
                platform=ToolPolicy.from_json(platform.value if platform else None),
            ),
            settings=SettingsLayers(
                agent=dict(agent.builtin_tool_settings),
                tenant=tenant_tiers,
                platform=global_tiers,
            ),
            secret_values=tuple(v for v in secrets if len(v) >= MIN_SCRUB_LENGTH),
            custom_tools=tuple(custom),
            cli_binaries=binaries,
            mcp_servers=mcp_servers,
            llm=dict(agent.other_config.get("llm") or {}),
            hooks=tuple(agent.other_config.get("hooks") or ()),
            keyword_rules=tuple(
                KeywordRule.from_json(r)
                for r in (allowlist.value if allowlist else {}).get("rules", [])
            ),
            shell_deny_groups=merge_deny_groups(
                platform_deny.value if platform_deny else None,
                (tenant.other_config if tenant else {}).get("shell_deny_groups"),
                agent.other_config.get("shell_deny_groups"),
            ),
        )


class CachedConfigSource:
    def __init__(self, source: PostgresConfigSource, database_url: str) -> None:
        self._source = source
        self._dsn = libpq_dsn(database_url)
        self._cache: dict[tuple[str, str], AgentConfig] = {}
        self._generation = 0
        self._listening = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._subscribers: list[ChangeHook] = []

    def subscribe(self, hook: ChangeHook) -> None:
        """Also tell ``hook`` of every change (the MCP manager follows server edits)."""
        self._subscribers.append(hook)

    @property
    def listening(self) -> bool:
        return self._listening.is_set()

    async def start(self, wait: float = 5.0) -> None:
        """Start listening; wait (bounded) until the first LISTEN is in place."""
        self._task = asyncio.create_task(self._listen(), name="config-listener")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._listening.wait(), wait)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._listening.clear()

    async def agent_config(self, tenant_id: str, agent_id: str) -> AgentConfig | None:
        if not self.listening:
            return await self._source.agent_config(tenant_id, agent_id)
        key = (tenant_id, agent_id)
        if key in self._cache:
            return self._cache[key]
        generation = self._generation
        config = await self._source.agent_config(tenant_id, agent_id)
        if config is not None and generation == self._generation and self.listening:
            self._cache[key] = config  # not if a change arrived while we were reading
        return config

    def invalidate_all(self) -> None:
        self.invalidate(ConfigChange(ALL_TENANTS, "manual"))

    def invalidate(self, change: ConfigChange) -> None:
        self._generation += 1
        for hook in self._subscribers:
            hook(change)
        if change.tenant_id == ALL_TENANTS:
            self._cache.clear()
            return
        for key in [k for k in self._cache if k[0] == change.tenant_id]:
            del self._cache[key]

    async def _listen(self) -> None:
        delay = 0.5
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._dsn, autocommit=True
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.invalidate(ConfigChange(ALL_TENANTS, "reconnect"))
                    self._listening.set()
                    delay = 0.5
                    async for note in conn.notifies():
                        self.invalidate(ConfigChange.decode(note.payload))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("config listener lost its connection (%s); retrying", exc)
            self._listening.clear()
            self.invalidate(ConfigChange(ALL_TENANTS, "disconnect"))
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)
