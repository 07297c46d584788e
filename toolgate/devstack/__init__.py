"""The embedded stack of `toolgate dev`: Postgres and the Temporal dev server as children."""

from .ports import PortInUse, PortNeed, ensure_free, free_port
from .postgres import EmbeddedPostgres, PostgresStartFailed
from .temporal import TemporalDevServer, TemporalStartFailed, temporal_binary

__all__ = [
    "EmbeddedPostgres",
    "PortInUse",
    "PortNeed",
    "PostgresStartFailed",
    "TemporalDevServer",
    "TemporalStartFailed",
    "ensure_free",
    "free_port",
    "temporal_binary",
]
