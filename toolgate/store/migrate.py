"""Apply the Alembic migrations in migrations/ (the repository's, next to the package)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from ..config import normalise_dsn

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision``; safe to run on every start."""
    if not MIGRATIONS.is_dir():
        raise RuntimeError(
            f"migrations not found at {MIGRATIONS}; install toolgate from its repository "
            "(pip install -e .)"
        )
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", normalise_dsn(url).replace("%", "%%"))
    command.upgrade(config, revision)
