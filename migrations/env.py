"""Alembic environment: runs migrations synchronously over psycopg 3."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine, pool

from toolgate.config import normalise_dsn
from toolgate.store.models import Base

config = context.config
url = config.get_main_option("sqlalchemy.url") or os.environ.get("TOOLGATE_DATABASE_URL", "")
if not url:
    raise SystemExit("error: TOOLGATE_DATABASE_URL is not set")

engine = create_engine(normalise_dsn(url), poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
