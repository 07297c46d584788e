"""Subagents and delegations (child runs) and agent links (issue 6).

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _tenant() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "tenant_id", sa.String(63), sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False
    )


def _agent(name: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        name, postgresql.UUID(as_uuid=True), sa.ForeignKey("agents.id", ondelete="CASCADE"),
        nullable=False,
    )  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "child_runs",
        sa.Column("id", sa.Text, primary_key=True),
        _tenant(),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("mode", sa.Text, nullable=False),
        sa.Column("parent_id", sa.Text, nullable=False),
        sa.Column("parent_session_id", sa.Text, nullable=True),
        sa.Column("agent_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("target_agent_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("label", sa.Text, nullable=False, server_default=""),
        sa.Column("task", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_child_runs_state", "child_runs", ["tenant_id", "kind", "state"])
    op.create_index("ix_child_runs_parent", "child_runs", ["tenant_id", "parent_id"])
    op.create_table(
        "agent_links",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        _tenant(),
        _agent("source_agent_id"),
        _agent("target_agent_id"),
        sa.Column("direction", sa.Text, nullable=False),
        sa.Column("modes", postgresql.JSONB, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.UniqueConstraint("tenant_id", "source_agent_id", "target_agent_id"),
    )


def downgrade() -> None:
    op.drop_table("agent_links")
    op.drop_table("child_runs")
