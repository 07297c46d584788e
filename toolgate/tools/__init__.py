"""The domain core of toolgate: tools, their metadata, and the governed call.

Nothing here imports Temporal, FastAPI or SQL. Storage and backends arrive through
the Protocols of ``_ports``; the worker and the API wire in real implementations.
"""

from ._capabilities import infer_capability
from ._context import build_context
from ._model import CallContext, Capability, ToolContext, ToolResult
from ._paths import resolve_in_workspace, workspace_for
from ._pipeline import (
    CommandGuard,
    Executor,
    Governance,
    check_arguments,
    check_command,
    check_policy,
    check_rate_limit,
    execute_with_timeout,
    governed_call,
    resolve_tool,
    scrub_result,
    scrub_value,
)
from ._policy import TOOL_GROUPS, check_allowed, effective_tools
from ._ports import AgentPolicy, AuditEntry, AuditLog, PolicySource
from ._ratelimit import RateLimit, RateLimiter, TokenBucketLimiter
from ._registry import Registry, ToolDescriptor
from ._schema import check_schema, validate_arguments
from ._scrubber import REDACTED, Scrubber
from ._tool import DEFAULT_TIMEOUT_SECONDS, Tool, ToolSpec

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "REDACTED",
    "TOOL_GROUPS",
    "AgentPolicy",
    "AuditEntry",
    "AuditLog",
    "CallContext",
    "Capability",
    "CommandGuard",
    "Executor",
    "Governance",
    "PolicySource",
    "RateLimit",
    "RateLimiter",
    "Registry",
    "Scrubber",
    "TokenBucketLimiter",
    "Tool",
    "ToolContext",
    "ToolDescriptor",
    "ToolResult",
    "ToolSpec",
    "build_context",
    "check_allowed",
    "check_arguments",
    "check_command",
    "check_policy",
    "check_rate_limit",
    "check_schema",
    "effective_tools",
    "execute_with_timeout",
    "governed_call",
    "infer_capability",
    "resolve_in_workspace",
    "resolve_tool",
    "scrub_result",
    "scrub_value",
    "validate_arguments",
    "workspace_for",
]
