"""Request and response models of the REST API (Create / Public variants)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

TENANT_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"


class ErrorBody(BaseModel):
    code: str
    """Stable, documented error code (docs/api.md)."""
    message: str
    """What went wrong and what to do about it."""


class AgentCreate(BaseModel):
    tenant_id: str = Field(pattern=TENANT_PATTERN, description="Tenant slug; created on first use")
    name: str = Field(min_length=1, max_length=64)
    allowed_tools: list[str] = Field(
        default_factory=list, description="Tool names, group:<name> references or *"
    )


class AgentPublic(BaseModel):
    id: str
    tenant_id: str
    name: str
    allowed_tools: list[str]
    created_at: datetime
    warnings: list[str] = Field(default_factory=list)
    """Entries of allowed_tools that name no known tool or group."""


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


class ResultPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    for_llm: str
    for_user: str
    is_error: bool
    error_code: str | None


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
