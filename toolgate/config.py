"""Settings, from TOOLGATE_* environment variables (README "Configuration")."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .crypto import KeyRing


def normalise_dsn(url: str) -> str:
    """Accept postgres://, postgresql:// or postgresql+psycopg:// and use psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


class Settings(BaseSettings):
    """One place for every knob; each field is a row of the README's table."""

    model_config = SettingsConfigDict(env_prefix="TOOLGATE_", extra="ignore")

    data_dir: Path = Path(".toolgate")
    """`toolgate dev`: where Postgres, Temporal and workspaces keep their data."""
    database_url: str | None = None
    """Postgres DSN; `toolgate dev` sets it to its embedded server."""
    temporal_address: str = "127.0.0.1:7233"
    temporal_namespace: str = "default"
    task_queue: str = "toolgate-tools"
    workspace_root: Path | None = None
    """Root of the per-tenant/agent/user workspaces; defaults to <data_dir>/workspaces."""
    max_file_bytes: int = Field(default=1_048_576, ge=1)
    exec_max_output_bytes: int = Field(default=65_536, ge=1024)
    """exec and custom tools: output kept per call; the rest is cut with a note."""
    rate_limit_per_minute: float = Field(default=120.0, gt=0)
    rate_limit_burst: int = Field(default=30, ge=1)
    scrub_values: str = ""
    """Comma-separated values to scrub from every tool result (server IPs, tokens)."""
    secret_keys: str = Field(default="", repr=False)
    """Encryption key ring, `<id>:<base64 32 bytes>[,...]`; the first one encrypts."""
    codec_cors_origins: str = "http://127.0.0.1:8233,http://localhost:8233"
    """Origins (the Temporal Web UI) allowed to call the codec endpoints."""
    codec_ui_token: str = Field(default="", repr=False)
    """Enables /v1/codec/ui/<token>/* for a Web UI that cannot send an API key."""
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    log_level: str = "info"

    @field_validator("database_url")
    @classmethod
    def _psycopg(cls, value: str | None) -> str | None:
        return normalise_dsn(value) if value else value

    @property
    def workspaces(self) -> Path:
        return (self.workspace_root or self.data_dir / "workspaces").resolve()

    def require_database_url(self) -> str:
        if not self.database_url:
            raise SystemExit(
                "error: TOOLGATE_DATABASE_URL is not set; point it at Postgres "
                "(postgresql://user:pass@host:5432/db) or use `toolgate dev`"
            )
        return self.database_url

    def key_ring(self) -> KeyRing:
        """The parsed ring; raises KeyRingError with what to fix."""
        return KeyRing.parse(self.secret_keys)

    def dynamic_scrub_values(self) -> list[str]:
        return [v.strip() for v in self.scrub_values.split(",") if v.strip()]
