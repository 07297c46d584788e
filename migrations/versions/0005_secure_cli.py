"""Credentialed CLI binaries and their grants (spec §4, §5).

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "secure_cli_binaries",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "tenant_id",
            sa.String(63),
            sa.ForeignKey("tenants.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("binary_name", sa.String(64), nullable=False),
        sa.Column("encrypted_env", postgresql.JSONB, nullable=False, server_default="{}"),
        sa.Column("deny_args", postgresql.JSONB, nullable=False, server_default="[]"),
        sa.Column("timeout_seconds", sa.Integer, nullable=False, server_default="60"),
        sa.Column("tips", sa.Text, nullable=False, server_default=""),
        sa.Column("adapter_name", sa.String(64), nullable=False, server_default="passthrough"),
        sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
        sa.UniqueConstraint("tenant_id", "binary_name"),
    )
    op.create_table(
        "secure_cli_grants",
        sa.Column(
            "binary_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("secure_cli_binaries.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "agent_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("agents.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
    )


def downgrade() -> None:
    op.drop_table("secure_cli_grants")
    op.drop_table("secure_cli_binaries")
