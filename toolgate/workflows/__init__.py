"""Temporal workflows. Names are a persisted contract (docs/contracts.md)."""

from .retry import retry_policy_for
from .tool_call import ToolCallRequest, ToolCallWorkflow

__all__ = ["ToolCallRequest", "ToolCallWorkflow", "retry_policy_for"]
