"""The domain core of toolgate: tools, their metadata, and the governed call.

Nothing here imports Temporal, FastAPI or SQL. Storage and backends arrive through
the Protocols of ``_ports``; the worker and the API wire in real implementations.
"""

from ._capabilities import infer_capability
from ._context import build_context
from ._custom import CustomTool, CustomToolDef, EnvVar, check_definition, render
from ._groups import PROFILES, TOOL_GROUPS, GroupCatalog
from ._hooks import HookList, HookOutcome, RewriteHook, WebhookHook, run_hooks
from ._mcp import (
    BridgedTool,
    McpAccessDenied,
    McpBridge,
    McpGrant,
    McpServerAccess,
    McpServerConfig,
    McpToolDef,
    McpUnavailable,
    tool_name,
)
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
    load_config,
    policy_request,
    resolve_tool,
    scrub_result,
    scrub_value,
)
from ._policy import (
    Explanation,
    PolicyInputs,
    PolicyRequest,
    Resolution,
    ToolPolicy,
    catalog_for,
    check_allowed,
    check_policy_shape,
    explain,
    policy_warnings,
    resolve,
)
from ._ports import AgentConfig, AuditEntry, AuditLog, ConfigSource
from ._ratelimit import RateLimit, RateLimiter, TokenBucketLimiter
from ._registry import Registry, ToolDescriptor
from ._schema import check_schema, validate_arguments
from ._scrubber import REDACTED, Scrubber
from ._settings import (
    SETTINGS_MODELS,
    SettingsLayers,
    SpawnSettings,
    exec_timeout,
    spawn_limits,
    validate_settings,
)
from ._tool import DEFAULT_TIMEOUT_SECONDS, Tool, ToolSpec

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "PROFILES",
    "REDACTED",
    "SETTINGS_MODELS",
    "TOOL_GROUPS",
    "AgentConfig",
    "AuditEntry",
    "AuditLog",
    "BridgedTool",
    "McpAccessDenied",
    "McpBridge",
    "McpGrant",
    "McpServerAccess",
    "McpServerConfig",
    "McpToolDef",
    "McpUnavailable",
    "tool_name",
    "CallContext",
    "CustomTool",
    "CustomToolDef",
    "EnvVar",
    "Capability",
    "CommandGuard",
    "ConfigSource",
    "Executor",
    "Explanation",
    "Governance",
    "GroupCatalog",
    "HookList",
    "HookOutcome",
    "PolicyInputs",
    "PolicyRequest",
    "RateLimit",
    "RateLimiter",
    "Registry",
    "Resolution",
    "RewriteHook",
    "Scrubber",
    "SettingsLayers",
    "SpawnSettings",
    "TokenBucketLimiter",
    "Tool",
    "ToolContext",
    "ToolDescriptor",
    "ToolPolicy",
    "ToolResult",
    "ToolSpec",
    "WebhookHook",
    "build_context",
    "catalog_for",
    "check_allowed",
    "check_arguments",
    "check_definition",
    "check_command",
    "check_policy",
    "check_policy_shape",
    "check_rate_limit",
    "check_schema",
    "exec_timeout",
    "spawn_limits",
    "execute_with_timeout",
    "explain",
    "governed_call",
    "infer_capability",
    "load_config",
    "policy_request",
    "policy_warnings",
    "render",
    "resolve",
    "resolve_in_workspace",
    "resolve_tool",
    "run_hooks",
    "scrub_result",
    "scrub_value",
    "validate_arguments",
    "validate_settings",
    "workspace_for",
]
