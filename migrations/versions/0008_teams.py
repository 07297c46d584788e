"""Teams, members, and the task board's Postgres mirror (issue 7).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def _team() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "team_id", postgresql.UUID(as_uuid=True), sa.ForeignKey("teams.id", ondelete="CASCADE"),
        primary_key=True,
    )  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "teams",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "tenant_id",
            sa.String(63),
            sa.ForeignKey("tenants.id", ondelete="CASCADE"),
            nullable=False,
        ),  # fmt: skip
        sa.Column("name", sa.Text, nullable=False),
        sa.Column(
            "lead_agent_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("agents.id", ondelete="CASCADE"),
            nullable=False,
        ),  # fmt: skip
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.UniqueConstraint("tenant_id", "name"),
    )
    op.create_table(
        "team_members",
        _team(),
        sa.Column(
            "agent_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("agents.id", ondelete="CASCADE"),
            primary_key=True,
        ),  # fmt: skip
        sa.Column("role", sa.Text, nullable=False),
        sa.Column(
            "session_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("sessions.id", ondelete="CASCADE"),
            nullable=False,
        ),  # fmt: skip
    )
    op.create_table(
        "team_tasks",
        _team(),
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("data", postgresql.JSONB, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("owner", sa.Text, nullable=True),
        sa.Column("updated_seq", sa.Integer, nullable=False),
        sa.Column(
            "search",
            postgresql.TSVECTOR,
            sa.Computed(
                "to_tsvector('simple', coalesce(data->>'title', '') || ' ' || "
                "coalesce(data->>'description', '') || ' ' || "
                "coalesce(data->>'result', ''))",
                persisted=True,
            ),
        ),  # fmt: skip
    )
    op.create_index("ix_team_tasks_search", "team_tasks", ["search"], postgresql_using="gin")
    op.create_index("ix_team_tasks_status", "team_tasks", ["team_id", "status", "number"])
    op.create_table(
        "team_events",
        _team(),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("task_id", sa.Text, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("detail", postgresql.JSONB, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
    )
    op.create_index("ix_team_events_task", "team_events", ["team_id", "task_id", "seq"])


def downgrade() -> None:
    op.drop_table("team_events")
    op.drop_table("team_tasks")
    op.drop_table("team_members")
    op.drop_table("teams")
