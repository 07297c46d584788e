"""An agent's LLM settings and the provider built from them (in the worker only)."""

from __future__ import annotations

from typing import Literal

import httpx
from pydantic import BaseModel, Field

from ._errors import ProviderNotConfigured
from .anthropic import Anthropic
from .openai import OpenAICompatible
from .scripted import Script, Scripted

DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}


class AgentLLM(BaseModel):
    """Stored as ``agents.other_config.llm``; holds a secret's *name*, never a key."""

    provider: Literal["scripted", "openai", "anthropic"] = "scripted"
    model: str = Field(default="", max_length=200)
    base_url: str | None = Field(default=None, max_length=500)
    api_key_secret: str | None = Field(default=None, max_length=128)
    """Name of the tenant secret holding the API key (PUT /v1/secrets/{name})."""
    script: Script | None = None
    """The turns of the ``scripted`` provider."""
    subagent_scripts: dict[str, Script] = Field(default_factory=dict, max_length=50)
    """``scripted``: the script a subagent follows, by its task (exact text)."""
    system_prompt: str = Field(default="", max_length=20_000)
    max_iterations: int = Field(default=20, ge=1, le=200)
    parallel_tool_calls: int = Field(default=4, ge=1, le=32)
    """How many read-only tool calls of one turn may run at once."""


def build_provider(
    config: AgentLLM, secrets: dict[str, str], http: httpx.AsyncClient, task: str | None = None
) -> Scripted | OpenAICompatible | Anthropic:
    """The provider for this agent, or a clear error before any call is made.

    ``task``: set for a subagent, whose scripted turns may differ by task.
    """
    if config.provider == "scripted":
        if task is not None and task in config.subagent_scripts:
            return Scripted(config.subagent_scripts[task])
        if config.script is None:
            raise ProviderNotConfigured("the scripted provider needs a script of turns")
        return Scripted(config.script)
    if not config.api_key_secret:
        raise ProviderNotConfigured(
            f"the {config.provider} provider needs api_key_secret: the name of a tenant "
            "secret holding the key (PUT /v1/secrets/{name})"
        )
    key = secrets.get(config.api_key_secret)
    if not key:
        raise ProviderNotConfigured(
            f"the secret {config.api_key_secret!r} does not exist in this tenant; "
            f"store the {config.provider} key with PUT /v1/secrets/{config.api_key_secret}"
        )
    base = config.base_url or DEFAULT_BASE_URLS[config.provider]
    if config.provider == "openai":
        return OpenAICompatible(base, key, http)
    return Anthropic(base, key, http)
