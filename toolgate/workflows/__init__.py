"""Temporal workflows. Names are a persisted contract (docs/architecture.md)."""

from .agent_run import AgentRunInput, AgentRunStatus, AgentRunWorkflow, UserMessage
from .retry import retry_policy_for
from .tool_call import ApprovalDecision, ToolCallRequest, ToolCallStatus, ToolCallWorkflow

__all__ = [
    "AgentRunInput",
    "AgentRunStatus",
    "AgentRunWorkflow",
    "ApprovalDecision",
    "ToolCallRequest",
    "ToolCallStatus",
    "ToolCallWorkflow",
    "UserMessage",
    "retry_policy_for",
]
