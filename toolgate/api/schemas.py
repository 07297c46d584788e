"""Request and response models of the REST API (Create / Public variants)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

TENANT_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"


class ErrorBody(BaseModel):
    code: str
    """Stable, documented error code (docs/api.md)."""
    message: str
    """What went wrong and what to do about it."""


_Entry = Annotated[str, StringConstraints(min_length=1, max_length=200)]
_List = Annotated[list[_Entry], Field(max_length=1000)]
_Name = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.:\-]{1,128}$")]


class ToolPolicyModel(BaseModel):
    """One layer of the policy pipeline (docs/policy.md). Every list is optional."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"profile": "coding", "deny": ["exec"], "also_allow": ["group:team"]}]
        },
    )

    profile: str | None = Field(default=None, description="full, coding, messaging or minimal")
    provider_profiles: dict[_Name, str] = Field(default_factory=dict, max_length=50)
    allow: _List | None = Field(default=None, description="Intersection; unset = no filter")
    provider_allow: dict[_Name, _List] = Field(default_factory=dict, max_length=50)
    deny: _List = Field(default_factory=list)
    also_allow: _List = Field(default_factory=list, description="Added back after deny")
    subagent_deny: _List = Field(default_factory=list)
    leaf_deny: _List | None = Field(default=None, description="Default: spawn, delegate")
    group_allow: dict[_Name, _List] = Field(
        default_factory=dict, max_length=1000, description="Keyed '<channel>:<chat_id>'"
    )
    groups: dict[_Name, _List] = Field(
        default_factory=dict, max_length=100, description="Your own group:<name> definitions"
    )
    max_spawn_depth: int | None = Field(default=None, ge=0, le=5)

    def stored(self) -> dict[str, Any]:
        return self.model_dump(exclude_defaults=True)


class AgentCreate(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"name": "coder", "tool_policy": {"profile": "coding", "deny": ["exec"]}}]
        }
    )

    name: str = Field(min_length=1, max_length=64)
    tool_policy: ToolPolicyModel = Field(default_factory=ToolPolicyModel)


class AgentUpdate(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"tool_policy": {"profile": "minimal"}}]}
    )

    tool_policy: ToolPolicyModel


class AgentPublic(BaseModel):
    id: str
    tenant_id: str
    name: str
    tool_policy: dict[str, Any]
    tool_settings: dict[str, Any]
    """The agent tier of tool settings (tool name → settings)."""
    created_at: datetime
    warnings: list[str] = Field(default_factory=list)
    """List entries that name no known tool or group, and group loops (never errors)."""


class PolicyPublic(BaseModel):
    scope: str
    """``global`` or ``tenant``."""
    tool_policy: dict[str, Any]
    warnings: list[str] = Field(default_factory=list)


class ExplanationPublic(BaseModel):
    tool: str
    reaches_llm: bool
    decided_by: str
    """Pipeline step that last admitted or removed the tool (docs/policy.md)."""
    reason: str
    trace: list[str]


class AgentToolsPublic(BaseModel):
    agent_id: str
    tools: list[str]
    """Names of the tools that reach this agent's LLM for the given request."""
    warnings: list[str]
    explain: list[ExplanationPublic] | None = None


class TenantCreate(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"id": "acme", "name": "Acme"}]})

    id: str = Field(pattern=TENANT_PATTERN)
    name: str = Field(default="", max_length=200)


class TenantPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    name: str
    created_at: datetime


class KeyCreate(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"role": "admin", "label": "ci"}]})

    role: Literal["user", "admin", "master"] = "user"
    label: str = Field(default="", max_length=200)
    user_id: str | None = None


class KeyPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    tenant_id: str
    role: str
    label: str
    user_id: str | None
    created_at: datetime
    revoked_at: datetime | None


class KeyCreated(KeyPublic):
    key: str
    """The full key. Shown this once; only its hash is stored."""


class UserCreate(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"name": "alice", "email": "alice@example.com"}]}
    )

    name: str = Field(min_length=1, max_length=128)
    email: str | None = Field(default=None, max_length=320)


class UserPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    tenant_id: str
    name: str
    email: str | None
    created_at: datetime


class ToolSettingsPublic(BaseModel):
    tool: str
    settings: dict[str, Any]
    """What the tool reads (wholesale from the most specific tier that has an entry)."""
    source: str
    """``agent``, ``tenant``, ``global`` or ``default``."""


class SecretPut(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"value": "BSA-your-api-key"}]})

    value: str = Field(min_length=1, max_length=65536)


class SecretPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    name: str
    masked: str
    key_id: str
    updated_at: datetime


class ToolPublic(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any]
    capability: str
    groups: list[str]
    timeout_seconds: float


class InvokeRequest(BaseModel):
    agent_id: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    call_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        pattern=r"^[A-Za-z0-9_.:\-]+$",
        description="Your id for this call; repeating it returns the first call's result",
    )
    user_id: str = ""
    session_key: str = ""
    channel: str = ""
    chat_id: str = ""
    request_allow: list[str] | None = None
    provider: str = ""
    approval_timeout_seconds: float = Field(
        default=900, gt=0, le=7 * 86400, description="How long a package install waits"
    )


class ResultPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    for_llm: str
    for_user: str
    is_error: bool
    error_code: str | None


class ApprovalPending(BaseModel):
    status: Literal["awaiting_approval"] = "awaiting_approval"
    approval_id: str
    """Decide with POST /v1/approvals/{approval_id} (admin)."""
    call_id: str
    """Invoke again with this call_id to get the outcome once decided."""
    workflow_id: str


class ApprovalPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    agent_id: str
    tool: str
    command: str
    """As the agent wrote it, scrubbed."""
    reason: str
    status: str
    """``pending``, ``approved``, ``denied`` or ``expired``."""
    workflow_id: str
    decided_by: str | None
    created_at: datetime
    decided_at: datetime | None


class ApprovalDecide(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"decision": "approve"}]})

    decision: Literal["approve", "deny"]


class DenyGroupsPublic(BaseModel):
    scope: str
    """``global``, ``tenant`` or ``agent``."""
    shell_deny_groups: dict[str, bool]
    """What this scope sets (missing keys fall through to the wider scope)."""
    effective: dict[str, bool]
    """Merged global → tenant → agent; true means denied."""


class EnvValue(BaseModel):
    value: str = Field(min_length=1, max_length=8192)
    kind: Literal["sensitive", "value"] = "sensitive"
    """``sensitive``: masked and replace-only; ``value``: shown to admins."""


_DNS_EXAMPLE: dict[str, Any] = {
    "name": "dns_lookup",
    "description": "Look up DNS records for a domain",
    "parameters": {
        "type": "object",
        "properties": {
            "domain": {"type": "string", "description": "Domain name"},
            "record_type": {"type": "string", "enum": ["A", "AAAA", "MX", "CNAME", "TXT"]},
        },
        "required": ["domain"],
    },
    "command": "dig +short {{.record_type}} {{.domain}}",
    "timeout_seconds": 10,
    "enabled": True,
}


class CustomToolCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_DNS_EXAMPLE]})

    name: str = Field(description="lowercase letters, digits, _; not a built-in's name")
    description: str = Field(min_length=1, max_length=2000)
    parameters: dict[str, Any] = Field(description="JSON Schema of the arguments (type object)")
    command: str = Field(description="Shell command; {{.param}} becomes the quoted argument")
    timeout_seconds: int = 60
    enabled: bool = True
    agent_id: str | None = Field(default=None, description="Only this agent; unset: all")
    env: dict[str, str | EnvValue] = Field(
        default_factory=dict, max_length=50, description="A plain string is a sensitive value"
    )


class CustomToolUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    description: str | None = Field(default=None, min_length=1, max_length=2000)
    parameters: dict[str, Any] | None = None
    command: str | None = None
    timeout_seconds: int | None = None
    enabled: bool | None = None
    agent_id: str | None = None
    env: dict[str, str | EnvValue | None] | None = Field(
        default=None, description="Only the names given change; null removes one"
    )


class CustomToolPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    agent_id: str | None
    name: str
    description: str
    parameters: dict[str, Any]
    command: str
    timeout_seconds: int
    enabled: bool
    env: dict[str, dict[str, str]]
    """name → {kind, value}; sensitive values read ``****``."""
    created_at: datetime
    updated_at: datetime


class CliBinaryCreate(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"binary_name": "gh", "preset": "gh", "env": {"GH_TOKEN": "ghp_..."}}]
        },
    )

    binary_name: str
    preset: str | None = Field(
        default=None, description="gh, gcloud, aws, kubectl, terraform, gws, git"
    )
    env: dict[str, str | EnvValue] = Field(default_factory=dict, max_length=50)
    deny_args: list[str] | None = Field(default=None, max_length=100, description="Regexes")
    timeout_seconds: int | None = None
    tips: str | None = Field(default=None, max_length=2000)
    adapter: str | None = Field(default=None, description="passthrough (default) or git")
    enabled: bool = True


class CliBinaryUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: dict[str, str | EnvValue | None] | None = None
    deny_args: list[str] | None = Field(default=None, max_length=100)
    timeout_seconds: int | None = None
    tips: str | None = Field(default=None, max_length=2000)
    adapter: str | None = None
    enabled: bool | None = None


class CliBinaryPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    binary_name: str
    env: dict[str, dict[str, str]]
    deny_args: list[str]
    timeout_seconds: int
    tips: str
    adapter: str
    enabled: bool
    granted_agents: list[str]
    created_at: datetime


class CliPresetPublic(BaseModel):
    name: str
    deny_args: list[str]
    timeout_seconds: int
    tips: str
    adapter: str


class KeywordAllowlist(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "rules": [
                        {
                            "id": "github-content",
                            "command": "gh",
                            "subcommands": ["issue create", "issue edit", "pr create"],
                            "args": ["--body", "--title"],
                            "argPositions": [],
                            "keywords": ["secret", "secrets", "token", "credential"],
                            "reason": "Allow security vocabulary in GitHub issue and PR prose",
                        }
                    ]
                }
            ]
        }
    )

    rules: list[dict[str, Any]] = Field(default_factory=list, max_length=200)


class InvokeResponse(BaseModel):
    tool: str
    call_id: str
    tool_call_id: str
    workflow_id: str
    run_id: str
    result: ResultPublic


class AuditPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    tool_call_id: str
    tool: str
    agent_id: str
    user_id: str
    session_key: str
    arguments: Any
    outcome: str
    error_code: str | None
    duration_ms: float
    result: ResultPublic
    created_at: datetime
