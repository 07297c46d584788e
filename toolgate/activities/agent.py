"""The agent loop's activities: the LLM call and the tool list of a turn.

``LLMCall`` builds the agent's provider in the worker, with the key read from the
tenant's encrypted secrets, so no key ever enters workflow history. Provider errors
become ApplicationErrors whose retry behaviour matches what a retry can do: 429
waits for Retry-After, 5xx and garbled bodies back off, other 4xx and a missing key
are not retried.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.exceptions import ApplicationError

from ..providers import (
    AgentLLM,
    LLMRequest,
    LLMResponse,
    Message,
    ProviderError,
    ProviderRateLimited,
    ToolCallOut,
)
from ..providers import build_provider as _build_provider
from ..tools import (
    AgentConfig,
    Capability,
    HookList,
    HookOutcome,
    PolicyRequest,
    SpawnSettings,
    ToolDescriptor,
    WebhookHook,
    run_hooks,
    spawn_limits,
)
from ..tools.team import team_md, with_team
from .hooks import ask_webhook
from .tool_call import heartbeating

if TYPE_CHECKING:
    from ..services import Services


class AgentRef(BaseModel):
    """Which agent, and the request dimensions of the policy. Ids only."""

    tenant_id: str
    agent_id: str
    provider: str = ""
    channel: str = ""
    chat_id: str = ""
    subagent_depth: int = 0
    request_allow: list[str] | None = None
    user_id: str = ""
    """Whose run it is: their MCP grants narrow the MCP tools listed to the LLM."""


class ToolInfo(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any]
    capability: Capability
    idempotent: bool = False
    timeout_seconds: float = 60.0


class AgentTurnSetup(BaseModel):
    """What one turn needs: the tools that reach the LLM and the loop's limits."""

    tools: list[ToolInfo] = Field(default_factory=list)
    model: str = ""
    system_prompt: str = ""
    max_iterations: int = 20
    parallel_tool_calls: int = 4
    provider: str = "scripted"
    has_hooks: bool = False
    spawn: SpawnSettings = Field(default_factory=SpawnSettings)
    """The subagent limits of this agent's merged ``spawn`` settings."""


class LLMCallInput(BaseModel):
    agent: AgentRef
    request: LLMRequest


def _info(d: ToolDescriptor) -> ToolInfo:
    return ToolInfo(
        name=d.name,
        description=d.description,
        parameters=dict(d.parameters),
        capability=d.capability,
        idempotent=d.idempotent,
        timeout_seconds=d.timeout_seconds,
    )


class PreToolUseInput(BaseModel):
    agent: AgentRef
    calls: list[ToolCallOut]


class SessionRecordInput(BaseModel):
    session_id: str
    first_seq: int
    messages: list[Message]


class AgentActivities:
    def __init__(self, services: Services) -> None:
        self._services = services
        self._http = httpx.AsyncClient()

    async def _config(self, ref: AgentRef) -> AgentConfig:
        config = await self._services.configs.agent_config(ref.tenant_id, ref.agent_id)
        if config is None:
            raise ApplicationError(
                f"agent {ref.agent_id} does not exist in tenant {ref.tenant_id}",
                type="AgentNotFound",
                non_retryable=True,
            )
        return config

    @activity.defn(name="AgentTurnSetup")
    async def turn_setup(self, ref: AgentRef) -> AgentTurnSetup:
        """Re-read every turn, so a policy or settings change applies on the next turn."""
        config = await self._config(ref)
        llm = AgentLLM.model_validate(config.llm or {})
        registry = config.registry(self._services.registry)
        request = PolicyRequest(
            provider=ref.provider or llm.provider,
            channel=ref.channel,
            chat_id=ref.chat_id,
            subagent_depth=ref.subagent_depth,
            request_allow=frozenset(ref.request_allow) if ref.request_allow is not None else None,
        )
        names = sorted(config.tool_names(registry, request, ref.user_id))
        tools = [_info(registry.describe(name)) for name in names]
        return AgentTurnSetup(
            tools=tools,
            model=llm.model,
            system_prompt=with_team(llm.system_prompt, await self._team_md(ref)),
            max_iterations=llm.max_iterations,
            parallel_tool_calls=llm.parallel_tool_calls,
            provider=llm.provider,
            has_hooks=bool(config.hooks),
            spawn=spawn_limits(config.settings.merged("spawn")[0]),
        )

    async def _team_md(self, ref: AgentRef) -> dict[str, str]:
        """TEAM.md of every team this agent leads (teammates get none)."""
        led = [t for t in await self._services.teams.find(ref.tenant_id, ref.agent_id)
               if t.lead_agent_id == ref.agent_id]  # fmt: skip
        texts = {}
        for team in led:
            members = []
            for member in team.members:
                agent = await self._services.agents.get(ref.tenant_id, member.agent_id)
                members.append((member.agent_id, agent.name if agent else "?", member.role))
            texts[team.id] = team_md(team.name, members, team.lead_agent_id)
        return texts

    @activity.defn(name="PreToolUse")
    async def pre_tool_use(self, turn: PreToolUseInput) -> list[HookOutcome]:
        """Every call of the turn through the agent's hooks, before any tool runs."""
        config = await self._config(turn.agent)
        hooks = HookList.model_validate({"hooks": list(config.hooks)}).hooks

        async def ask(hook: WebhookHook, tool: str, args: dict[str, Any],
                      context: dict[str, str]) -> HookOutcome:  # fmt: skip
            return await ask_webhook(self._http, hook, tool, args, context)

        outcomes = []
        async with heartbeating():
            for call in turn.calls:
                context = {"tenant_id": turn.agent.tenant_id, "agent_id": turn.agent.agent_id,
                           "call_id": call.id}  # fmt: skip
                outcomes.append(await run_hooks(hooks, call.name, call.arguments, context, ask))
        return outcomes

    @activity.defn(name="SessionRecord")
    async def session_record(self, record: SessionRecordInput) -> None:
        """Persist the run's new messages (idempotent by sequence number)."""
        await self._services.sessions_store.record(
            record.session_id, record.first_seq, record.messages
        )

    @activity.defn(name="LLMCall")
    async def llm_call(self, call: LLMCallInput) -> LLMResponse:
        config = await self._config(call.agent)
        llm = AgentLLM.model_validate(config.llm or {})
        try:
            secrets = await self._services.secrets.values(call.agent.tenant_id)
            task = None
            if call.agent.subagent_depth > 0:
                task = next((m.content for m in call.request.messages if m.role == "user"), None)
            provider = _build_provider(llm, secrets, self._http, task)
            async with heartbeating():
                return await provider.complete(call.request)
        except ProviderRateLimited as exc:
            delay = timedelta(seconds=exc.retry_after) if exc.retry_after is not None else None
            raise ApplicationError(exc.message, type=exc.code, next_retry_delay=delay) from exc
        except ProviderError as exc:
            # Retryable: unavailable, garbled; not: rejected (4xx), not configured.
            raise ApplicationError(
                exc.message, type=exc.code, non_retryable=not exc.retryable
            ) from exc
