"""LLM providers: one protocol, three implementations (OpenAI-compatible, Anthropic,
scripted). Each call is one Temporal activity of the agent loop; keys are resolved by
the worker from the tenant's secrets and never enter workflow history."""

from typing import Protocol

from ._config import AgentLLM, build_provider
from ._errors import (
    ProviderError,
    ProviderNotConfigured,
    ProviderRateLimited,
    ProviderRejected,
    ProviderResponseInvalid,
    ProviderUnavailable,
)
from ._model import LLMRequest, LLMResponse, Message, ToolCallOut, ToolSchema, Usage
from .anthropic import Anthropic
from .openai import OpenAICompatible
from .scripted import Script, Scripted, ScriptedCall, ScriptedTurn


class Provider(Protocol):
    name: str

    async def complete(self, request: LLMRequest) -> LLMResponse: ...


__all__ = [
    "AgentLLM",
    "Anthropic",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "OpenAICompatible",
    "Provider",
    "ProviderError",
    "ProviderNotConfigured",
    "ProviderRateLimited",
    "ProviderRejected",
    "ProviderResponseInvalid",
    "ProviderUnavailable",
    "Script",
    "Scripted",
    "ScriptedCall",
    "ScriptedTurn",
    "ToolCallOut",
    "ToolSchema",
    "Usage",
    "build_provider",
]
