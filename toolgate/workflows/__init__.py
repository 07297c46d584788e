"""Temporal workflows. Names are a persisted contract (docs/architecture.md)."""

from .retry import retry_policy_for
from .tool_call import ApprovalDecision, ToolCallRequest, ToolCallStatus, ToolCallWorkflow

__all__ = [
    "ApprovalDecision",
    "ToolCallRequest",
    "ToolCallStatus",
    "ToolCallWorkflow",
    "retry_policy_for",
]
