"""MCP servers of a tenant, agent and user grants, access requests (issue 8).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

UUID = postgresql.UUID(as_uuid=True)
JSONB = postgresql.JSONB


def _ref(column: str, table: str, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(column, UUID, sa.ForeignKey(f"{table}.id", ondelete="CASCADE"),
                     nullable=nullable)  # fmt: skip


def _tenant() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column("tenant_id", sa.String(63), sa.ForeignKey("tenants.id", ondelete="CASCADE"),
                     nullable=False)  # fmt: skip


def _created() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now())


def upgrade() -> None:
    op.create_table(
        "mcp_servers",
        sa.Column("id", UUID, primary_key=True),
        _tenant(),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("transport", sa.String(20), nullable=False),
        sa.Column("command", sa.Text, nullable=False, server_default=""),
        sa.Column("args", JSONB, nullable=False, server_default="[]"),
        sa.Column("env", JSONB, nullable=False, server_default="{}"),
        sa.Column("url", sa.Text, nullable=False, server_default=""),
        sa.Column("headers", JSONB, nullable=False, server_default="{}"),
        sa.Column("tool_prefix", sa.String(40), nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("timeout_seconds", sa.Float, nullable=False, server_default="60"),
        sa.Column("require_user_grant", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("tools", JSONB, nullable=False, server_default="[]"),
        sa.Column("tool_warnings", JSONB, nullable=False, server_default="[]"),
        sa.Column("tools_seen_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", sa.String(20), nullable=False, server_default="pending"),
        sa.Column("last_error", sa.Text, nullable=False, server_default=""),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("connected_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=True),
        _created(),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.UniqueConstraint("tenant_id", "name"),
        sa.UniqueConstraint("tenant_id", "tool_prefix"),
    )
    for kind, who, table in (("agent", "agent_id", "agents"), ("user", "user_id", "users")):
        op.create_table(
            f"mcp_{kind}_grants",
            sa.Column("id", UUID, primary_key=True),
            _tenant(),
            _ref("server_id", "mcp_servers"),
            _ref(who, table),
            sa.Column("tool_allow", JSONB, nullable=True),
            sa.Column("tool_deny", JSONB, nullable=False, server_default="[]"),
            _created(),
            sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
            sa.UniqueConstraint("server_id", who),
        )
    op.create_table(
        "mcp_access_requests",
        sa.Column("id", UUID, primary_key=True),
        _tenant(),
        _ref("server_id", "mcp_servers"),
        _ref("user_id", "users"),
        sa.Column("tool_allow", JSONB, nullable=True),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("status", sa.String(20), nullable=False, server_default="pending"),
        sa.Column("decided_by", sa.Text, nullable=True),
        sa.Column("decision_note", sa.Text, nullable=False, server_default=""),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "grant_id",
            UUID,
            sa.ForeignKey("mcp_user_grants.id", ondelete="SET NULL"),
            nullable=True,
        ),
        _created(),
    )
    op.create_index(
        "mcp_access_requests_one_pending", "mcp_access_requests", ["server_id", "user_id"],
        unique=True, postgresql_where=sa.text("status = 'pending'"),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("mcp_access_requests")
    op.drop_table("mcp_user_grants")
    op.drop_table("mcp_agent_grants")
    op.drop_table("mcp_servers")
