"""API keys and users, layered tool policy, tool settings, encrypted secrets.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

JSONB = postgresql.JSONB
NOW = sa.func.now()


def _tenant_fk() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "tenant_id", sa.String(63), sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False
    )


def upgrade() -> None:
    op.add_column("tenants", sa.Column("name", sa.Text, nullable=False, server_default=""))
    op.add_column("tenants", sa.Column("tool_policy", JSONB, nullable=False, server_default="{}"))
    op.execute("INSERT INTO tenants (id, name) VALUES ('master', 'platform operators') "
               "ON CONFLICT (id) DO NOTHING")  # fmt: skip

    op.add_column("agents", sa.Column("tool_policy", JSONB, nullable=False, server_default="{}"))
    op.add_column(
        "agents", sa.Column("builtin_tool_settings", JSONB, nullable=False, server_default="{}")
    )
    # The foundation's allow list becomes the agent's allow layer, unchanged in effect.
    op.execute("UPDATE agents SET tool_policy = jsonb_build_object('allow', allowed_tools)")
    op.drop_column("agents", "allowed_tools")

    op.create_table(
        "platform_config",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", JSONB, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=NOW),
    )
    op.create_table(
        "users",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        _tenant_fk(),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("email", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=NOW),
        sa.UniqueConstraint("tenant_id", "name"),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(32), primary_key=True),
        _tenant_fk(),
        sa.Column(
            "user_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("users.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("label", sa.Text, nullable=False, server_default=""),
        sa.Column("secret_hash", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=NOW),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_api_keys_tenant", "api_keys", ["tenant_id"])
    op.create_table(
        "builtin_tools",
        sa.Column("name", sa.String(128), primary_key=True),
        sa.Column("settings", JSONB, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=NOW),
    )
    op.create_table(
        "builtin_tool_tenant_configs",
        _tenant_fk(),
        sa.Column("tool_name", sa.String(128), nullable=False),
        sa.Column("settings", JSONB, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=NOW),
        sa.PrimaryKeyConstraint("tenant_id", "tool_name"),
    )
    op.create_table(
        "config_secrets",
        _tenant_fk(),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("key_id", sa.String(32), nullable=False),
        sa.Column("nonce", sa.LargeBinary, nullable=False),
        sa.Column("ciphertext", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=NOW),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=NOW),
        sa.PrimaryKeyConstraint("tenant_id", "name"),
    )
    op.create_table(
        "key_canaries",
        sa.Column("key_id", sa.String(32), primary_key=True),
        sa.Column("nonce", sa.LargeBinary, nullable=False),
        sa.Column("ciphertext", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=NOW),
    )


def downgrade() -> None:
    for table in (
        "key_canaries",
        "config_secrets",
        "builtin_tool_tenant_configs",
        "builtin_tools",
        "api_keys",
        "users",
        "platform_config",
    ):
        op.drop_table(table)
    op.add_column("agents", sa.Column("allowed_tools", JSONB, nullable=False, server_default="[]"))
    op.execute("UPDATE agents SET allowed_tools = COALESCE(tool_policy->'allow', '[]')")
    op.drop_column("agents", "builtin_tool_settings")
    op.drop_column("agents", "tool_policy")
    op.drop_column("tenants", "tool_policy")
    op.drop_column("tenants", "name")
