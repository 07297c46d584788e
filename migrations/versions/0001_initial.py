"""Tenants, agents, the tool audit log and rate-limit buckets.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("id", sa.String(63), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
    )
    op.create_table(
        "agents",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "tenant_id",
            sa.String(63),
            sa.ForeignKey("tenants.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("allowed_tools", postgresql.JSONB, nullable=False, server_default="[]"),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.UniqueConstraint("tenant_id", "name"),
    )
    op.create_table(
        "tool_audit",
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=True),
        sa.Column("tool_call_id", sa.Text, nullable=False),
        sa.Column("tenant_id", sa.String(63), nullable=False),
        sa.Column("agent_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Text, nullable=False, server_default=""),
        sa.Column("session_key", sa.Text, nullable=False, server_default=""),
        sa.Column("tool", sa.String(128), nullable=False),
        sa.Column("arguments", postgresql.JSONB, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("duration_ms", sa.Float, nullable=False),
        sa.Column("result", postgresql.JSONB, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
    )
    op.create_index("ix_tool_audit_call", "tool_audit", ["tool_call_id"])
    op.create_index(
        "ix_tool_audit_agent_time", "tool_audit", ["tenant_id", "agent_id", "created_at"]
    )
    op.create_table(
        "rate_limit_buckets",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("tokens", sa.Float, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rate_limit_buckets")
    op.drop_table("tool_audit")
    op.drop_table("agents")
    op.drop_table("tenants")
