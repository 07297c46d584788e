"""SQLAlchemy 2.0 models. The schema itself is owned by Alembic (migrations/)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class TenantRow(Base):
    __tablename__ = "tenants"

    id: Mapped[str] = mapped_column(String(63), primary_key=True)
    name: Mapped[str] = mapped_column(Text, default="")
    tool_policy: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    other_config: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    """``shell_deny_groups``: the tenant's deny-group toggles."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class AgentRow(Base):
    __tablename__ = "agents"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(64))
    tool_policy: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    builtin_tool_settings: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    """Tool name → settings object: the agent tier of the spec §9 overlay."""
    other_config: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    """``shell_deny_groups`` (spec §9: ``agents.other_config.shell_deny_groups``)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ToolAuditRow(Base):
    """One governed call. Holds scrubbed arguments and results only."""

    __tablename__ = "tool_audit"
    __table_args__ = (
        Index("ix_tool_audit_call", "tool_call_id"),
        Index("ix_tool_audit_agent_time", "tenant_id", "agent_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    tool_call_id: Mapped[str] = mapped_column(Text)
    tenant_id: Mapped[str] = mapped_column(String(63))
    agent_id: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[str] = mapped_column(Text, default="")
    session_key: Mapped[str] = mapped_column(Text, default="")
    tool: Mapped[str] = mapped_column(String(128))
    arguments: Mapped[Any] = mapped_column(JSONB)
    outcome: Mapped[str] = mapped_column(String(16))
    error_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    duration_ms: Mapped[float] = mapped_column(Float)
    result: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class RateLimitBucketRow(Base):
    __tablename__ = "rate_limit_buckets"

    key: Mapped[str] = mapped_column(Text, primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PlatformConfigRow(Base):
    """Platform-wide values (master scope), e.g. key ``tool_policy``."""

    __tablename__ = "platform_config"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[Any] = mapped_column(JSONB)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class UserRow(Base):
    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(128))
    email: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ApiKeyRow(Base):
    """An API key: only the SHA-256 of its secret part is stored."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    user_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    role: Mapped[str] = mapped_column(String(16))
    label: Mapped[str] = mapped_column(Text, default="")
    secret_hash: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class BuiltinToolRow(Base):
    """Global default settings of a built-in tool (tier 3; master scope to write)."""

    __tablename__ = "builtin_tools"

    name: Mapped[str] = mapped_column(String(128), primary_key=True)
    settings: Mapped[dict[str, Any]] = mapped_column(JSONB)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class TenantToolConfigRow(Base):
    """A tenant's settings for one tool (tier 2)."""

    __tablename__ = "builtin_tool_tenant_configs"

    tenant_id: Mapped[str] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    tool_name: Mapped[str] = mapped_column(String(128), primary_key=True)
    settings: Mapped[dict[str, Any]] = mapped_column(JSONB)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ConfigSecretRow(Base):
    """A tenant secret, AES-256-GCM encrypted under the key ``key_id`` of the ring."""

    __tablename__ = "config_secrets"

    tenant_id: Mapped[str] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(128), primary_key=True)
    key_id: Mapped[str] = mapped_column(String(32))
    nonce: Mapped[bytes] = mapped_column(LargeBinary)
    ciphertext: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class KeyCanaryRow(Base):
    """A known plaintext per encryption key, so a wrong key is caught at start."""

    __tablename__ = "key_canaries"

    key_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    nonce: Mapped[bytes] = mapped_column(LargeBinary)
    ciphertext: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ApprovalRow(Base):
    """A command that waits for a human (package installs). The command is scrubbed."""

    __tablename__ = "approvals"
    __table_args__ = (UniqueConstraint("tool_call_id", "command_sha256"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[str] = mapped_column(String(64))
    tool_call_id: Mapped[str] = mapped_column(Text)
    workflow_id: Mapped[str] = mapped_column(Text)
    tool: Mapped[str] = mapped_column(String(128))
    command: Mapped[str] = mapped_column(Text)
    command_sha256: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    decided_by: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class CustomToolRow(Base):
    """A custom shell tool. ``env`` maps a name to its encrypted value and kind."""

    __tablename__ = "custom_tools"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("agents.id", ondelete="CASCADE"), nullable=True
    )
    name: Mapped[str] = mapped_column(String(64))
    description: Mapped[str] = mapped_column(Text)
    parameters: Mapped[dict[str, Any]] = mapped_column(JSONB)
    command: Mapped[str] = mapped_column(Text)
    timeout_seconds: Mapped[int] = mapped_column(Integer, default=60)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    env: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class CliBinaryRow(Base):
    """A credentialed binary of a tenant; ``encrypted_env`` as in sealed_env.py."""

    __tablename__ = "secure_cli_binaries"
    __table_args__ = (UniqueConstraint("tenant_id", "binary_name"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    binary_name: Mapped[str] = mapped_column(String(64))
    encrypted_env: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    deny_args: Mapped[list[str]] = mapped_column(JSONB, default=list)
    timeout_seconds: Mapped[int] = mapped_column(Integer, default=60)
    tips: Mapped[str] = mapped_column(Text, default="")
    adapter_name: Mapped[str] = mapped_column(String(64), default="passthrough")
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class CliGrantRow(Base):
    __tablename__ = "secure_cli_grants"

    binary_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("secure_cli_binaries.id", ondelete="CASCADE"), primary_key=True
    )
    agent_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class SessionRow(Base):
    """A conversation: (tenant, agent, user, channel, chat id); runs counts AgentRuns."""

    __tablename__ = "sessions"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(Text, default="")
    channel: Mapped[str] = mapped_column(Text, default="")
    chat_id: Mapped[str] = mapped_column(Text, default="")
    runs: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class SessionMessageRow(Base):
    __tablename__ = "session_messages"

    session_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    message: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ChildRunRow(Base):
    """A subagent (``spawn``) or a delegation (``delegate``): a child workflow of a run.

    Written by activities as the child starts, ends and is archived, so listing does
    not depend on any worker's memory; the running rows are also the tenant's count
    for the concurrency limit.
    """

    __tablename__ = "child_runs"
    __table_args__ = (
        Index("ix_child_runs_state", "tenant_id", "kind", "state"),
        Index("ix_child_runs_parent", "tenant_id", "parent_id"),
    )

    id: Mapped[str] = mapped_column(Text, primary_key=True)
    """The child's workflow id."""
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(Text)
    mode: Mapped[str] = mapped_column(Text)
    parent_id: Mapped[str] = mapped_column(Text)
    parent_session_id: Mapped[str | None] = mapped_column(Text, nullable=True)
    agent_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True))
    target_agent_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True))
    label: Mapped[str] = mapped_column(Text, default="")
    task: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(Text)
    result: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    archived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class AgentLinkRow(Base):
    """Who may delegate to whom (spec §4 Delegation), and in which modes."""

    __tablename__ = "agent_links"
    __table_args__ = (UniqueConstraint("tenant_id", "source_agent_id", "target_agent_id"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    source_agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    target_agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    direction: Mapped[str] = mapped_column(Text)
    """``outbound`` (source → target) or ``bidirectional``."""
    modes: Mapped[list[str]] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class TeamRow(Base):
    """A team: a lead agent and members with roles (spec §11); one TeamBoard workflow."""

    __tablename__ = "teams"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(Text)
    lead_agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class TeamMemberRow(Base):
    __tablename__ = "team_members"

    team_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    agent_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True
    )
    role: Mapped[str] = mapped_column(Text)
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"))
    """The member's team session: what the board tells it arrives there."""


class TeamTaskRow(Base):
    """The board's mirror of a task, for listing and full-text search."""

    __tablename__ = "team_tasks"

    team_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[str] = mapped_column(Text, primary_key=True)
    number: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSONB)
    status: Mapped[str] = mapped_column(Text)
    owner: Mapped[str | None] = mapped_column(Text, nullable=True)
    updated_seq: Mapped[int] = mapped_column(Integer)


class TeamEventRow(Base):
    """Every change of the board, in order: task history, comments, attachments, SSE."""

    __tablename__ = "team_events"

    team_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    task_id: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(Text)
    detail: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class McpServerRow(Base):
    """An MCP server of a tenant (spec §10). ``env`` and ``headers`` are sealed as in
    sealed_env.py; ``tools`` is the list its last connection announced."""

    __tablename__ = "mcp_servers"
    __table_args__ = (
        UniqueConstraint("tenant_id", "name"),
        UniqueConstraint("tenant_id", "tool_prefix"),
    )

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(40))
    transport: Mapped[str] = mapped_column(String(20))
    command: Mapped[str] = mapped_column(Text, default="")
    args: Mapped[list[str]] = mapped_column(JSONB, default=list)
    env: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    url: Mapped[str] = mapped_column(Text, default="")
    headers: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    tool_prefix: Mapped[str] = mapped_column(String(40))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    timeout_seconds: Mapped[float] = mapped_column(Float, default=60.0)
    require_user_grant: Mapped[bool] = mapped_column(Boolean, default=False)
    tools: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, default=list)
    tool_warnings: Mapped[list[str]] = mapped_column(JSONB, default=list)
    tools_seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    last_error: Mapped[str] = mapped_column(Text, default="")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    connected_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    checked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class _McpGrantColumns:
    """What an agent's grant and a user's grant share (spec §10: the same JSONB lists)."""

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    server_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("mcp_servers.id", ondelete="CASCADE"))
    tool_allow: Mapped[list[str] | None] = mapped_column(JSONB, nullable=True)
    tool_deny: Mapped[list[str]] = mapped_column(JSONB, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class McpAgentGrantRow(_McpGrantColumns, Base):
    __tablename__ = "mcp_agent_grants"
    __table_args__ = (UniqueConstraint("server_id", "agent_id"),)

    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))


class McpUserGrantRow(_McpGrantColumns, Base):
    __tablename__ = "mcp_user_grants"
    __table_args__ = (UniqueConstraint("server_id", "user_id"),)

    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))


class McpAccessRequestRow(Base):
    __tablename__ = "mcp_access_requests"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    tenant_id: Mapped[str] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    server_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("mcp_servers.id", ondelete="CASCADE"))
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    tool_allow: Mapped[list[str] | None] = mapped_column(JSONB, nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(20), default="pending")
    decided_by: Mapped[str | None] = mapped_column(Text, nullable=True)
    decision_note: Mapped[str] = mapped_column(Text, default="")
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    grant_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("mcp_user_grants.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
