"""Per-tool settings: the 4-tier overlay of spec §9 and the typed shapes of spec §5.

Priority, most specific first: the agent's override, the tenant's, the platform's
global default, then the tool's own hardcoded defaults. The merge is per tool name and
wholesale: a tenant entry for ``web_search`` replaces the global one entirely, with
no field-by-field merge, so what an admin saved is exactly what the tool reads.

Writes are validated against the typed model of the tool, when it has one; at run time
tools still read defensively (a value that became invalid falls back, see
:func:`exec_timeout`), because stored JSON may predate a model change.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._scrubber import Scrubber
from .errors import InvalidSettings, SecretInSettings

EXEC_DEFAULT_TIMEOUT = 60
EXEC_MAX_TIMEOUT = 3600
MAX_SETTINGS_BYTES = 64 * 1024


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ExecSettings(_Shape):
    timeout_seconds: int = Field(default=EXEC_DEFAULT_TIMEOUT, ge=1, le=EXEC_MAX_TIMEOUT)
    """Host ``exec`` timeout; may be left out (60), not null."""


class SearchProvider(_Shape):
    enabled: bool = True
    max_results: int | None = Field(default=None, ge=1, le=100)


class WebSearchSettings(_Shape):
    provider_order: list[str] = Field(default_factory=list, max_length=20)
    """Preference order; unknown names are ignored (spec §5)."""
    brave: SearchProvider | None = None
    exa: SearchProvider | None = None
    tavily: SearchProvider | None = None
    duckduckgo: SearchProvider | None = None
    """Always the final fallback, even when ``enabled`` is false."""


class WebFetchSettings(_Shape):
    policy: Literal["allow_all", "allowlist"] = "allow_all"
    allowed_domains: list[str] = Field(default_factory=list, max_length=1000)
    blocked_domains: list[str] = Field(default_factory=list, max_length=1000)


class TtsSettings(_Shape):
    primary: Literal["elevenlabs", "openai", "edge", "minimax"] | None = None
    default_voice_id: str | None = Field(default=None, max_length=200)
    default_model: str | None = Field(default=None, max_length=200)


class DocumentParserSettings(_Shape):
    local_first: bool = False
    max_pages: int = Field(default=200, ge=1, le=10_000)
    timeout_sec: int = Field(default=30, ge=1, le=600)
    min_text_len: int = Field(default=16, ge=0, le=100_000)


class SpawnSettings(_Shape):
    """Subagent limits (spec §13). ``max_concurrent`` counts the tenant's running
    subagents across all parents and workers; set it at the tenant tier."""

    max_concurrent: int = Field(default=8, ge=1, le=1000)
    max_children: int = Field(default=5, ge=1, le=100)
    """Running subagents of one parent run."""
    max_iterations: int = Field(default=20, ge=1, le=200)
    archive_after_minutes: int = Field(default=60, ge=1, le=7 * 24 * 60)


def spawn_limits(settings: Mapping[str, Any]) -> SpawnSettings:
    """The stored limits, or the defaults when what is stored no longer validates."""
    try:
        return SpawnSettings.model_validate(dict(settings))
    except ValidationError:
        return SpawnSettings()


#: Tools whose settings have a typed shape, validated on write.
SETTINGS_MODELS: dict[str, type[BaseModel]] = {
    "exec": ExecSettings,
    "web_search": WebSearchSettings,
    "web_fetch": WebFetchSettings,
    "tts": TtsSettings,
    "document_parser": DocumentParserSettings,
    "read_document": DocumentParserSettings,
    "spawn": SpawnSettings,
}


def validate_settings(tool: str, value: Any, scrubber: Scrubber) -> dict[str, Any]:
    """The settings to store for ``tool``, or an error naming the field at fault."""
    if not isinstance(value, dict):
        raise InvalidSettings(f"settings for {tool!r} must be a JSON object", field=tool)
    encoded = json.dumps(value)
    if len(encoded) > MAX_SETTINGS_BYTES:
        raise InvalidSettings(
            f"settings for {tool!r} are {len(encoded)} bytes; at most {MAX_SETTINGS_BYTES}",
            field=tool,
        )
    _refuse_credentials(tool, value, scrubber)
    model = SETTINGS_MODELS.get(tool)
    if model is None:
        return value
    try:
        model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join([tool, *(str(p) for p in first["loc"])])
        raise InvalidSettings(f"{where}: {first['msg']}", field=where) from None
    return value


def _refuse_credentials(tool: str, value: Any, scrubber: Scrubber, path: str = "") -> None:
    """Credentials belong in the secrets store, never in settings JSON (spec §9)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _refuse_credentials(tool, item, scrubber, f"{path}.{key}" if path else str(key))
            if isinstance(item, str) and scrubber.scrub(f"{key}={item}") != f"{key}={item}":
                _secret(tool, path or str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _refuse_credentials(tool, item, scrubber, f"{path}[{i}]")
    elif isinstance(value, str) and scrubber.scrub(value) != value:
        _secret(tool, path)


def _secret(tool: str, where: str) -> None:
    raise SecretInSettings(
        f"{tool}.{where} looks like a credential; store it with "
        "PUT /v1/secrets/{name} and keep settings free of secrets"
    )


@dataclass(frozen=True, slots=True)
class SettingsLayers:
    """Stored overrides, tool name → settings object, per tier."""

    agent: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    tenant: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    platform: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def merged(self, tool: str) -> tuple[Mapping[str, Any], str]:
        """The settings ``tool`` reads and the tier they came from (wholesale)."""
        for tier, layer in (("agent", self.agent), ("tenant", self.tenant)):
            if tool in layer:
                return layer[tool], tier
        if tool in self.platform:
            return self.platform[tool], "global"
        return {}, "default"


def exec_timeout(settings: Mapping[str, Any]) -> int:
    """Spec §9: missing or invalid → 60 s; above the maximum → clamped to 3600 s."""
    value = settings.get("timeout_seconds")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return EXEC_DEFAULT_TIMEOUT
    return min(value, EXEC_MAX_TIMEOUT)
