"""Shell deny-group toggles (other_config on tenants and agents) and approvals.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in ("tenants", "agents"):
        op.add_column(
            table,
            sa.Column("other_config", postgresql.JSONB, nullable=False, server_default="{}"),
        )
    op.create_table(
        "approvals",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "tenant_id",
            sa.String(63),
            sa.ForeignKey("tenants.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("agent_id", sa.String(64), nullable=False),
        sa.Column("tool_call_id", sa.Text, nullable=False),
        sa.Column("workflow_id", sa.Text, nullable=False),
        sa.Column("tool", sa.String(128), nullable=False),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("command_sha256", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False, server_default="pending"),
        sa.Column("decided_by", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("tool_call_id", "command_sha256"),
    )
    op.create_index("ix_approvals_tenant_status", "approvals", ["tenant_id", "status"])


def downgrade() -> None:
    op.drop_table("approvals")
    for table in ("tenants", "agents"):
        op.drop_column(table, "other_config")
