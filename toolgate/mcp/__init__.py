"""MCP servers as tool providers (spec §10), over the SDK: a worker's supervised
connections and the bridge the gate calls, a probe for "test connection", and the
endpoint through which toolgate itself serves an agent's tools over MCP."""

from ..tools import McpServerConfig
from ._client import McpConnectError, probe
from ._clock import Clock, ManualClock, RealClock
from ._connection import (
    BACKOFF_FIRST_SECONDS,
    BACKOFF_MAX_SECONDS,
    HEALTH_EVERY_SECONDS,
    IDLE_AFTER_SECONDS,
    MAX_ATTEMPTS,
    Connection,
    Status,
    backoff,
)
from ._manager import McpManager
from ._tools import Announced, announced

__all__ = [
    "BACKOFF_FIRST_SECONDS",
    "BACKOFF_MAX_SECONDS",
    "HEALTH_EVERY_SECONDS",
    "IDLE_AFTER_SECONDS",
    "MAX_ATTEMPTS",
    "Announced",
    "Clock",
    "Connection",
    "ManualClock",
    "McpConnectError",
    "McpManager",
    "McpServerConfig",
    "RealClock",
    "Status",
    "announced",
    "backoff",
    "probe",
]
