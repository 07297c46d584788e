"""Temporal workflows. Names are a persisted contract (docs/architecture.md)."""

from ._children import ChildRecord, ChildUpdate, SteerRequest
from .agent_run import AgentRunInput, AgentRunStatus, AgentRunWorkflow, UserMessage
from .retry import retry_policy_for
from .subagent import ChildRunInput, DelegationWorkflow, SubagentWorkflow
from .team_board import BoardReply, TeamBoardInput, TeamBoardWorkflow
from .tool_call import ApprovalDecision, ToolCallRequest, ToolCallStatus, ToolCallWorkflow

__all__ = [
    "AgentRunInput",
    "AgentRunStatus",
    "AgentRunWorkflow",
    "ApprovalDecision",
    "ToolCallRequest",
    "ToolCallStatus",
    "ChildRecord",
    "ChildRunInput",
    "ChildUpdate",
    "DelegationWorkflow",
    "SteerRequest",
    "SubagentWorkflow",
    "BoardReply",
    "TeamBoardInput",
    "TeamBoardWorkflow",
    "ToolCallWorkflow",
    "UserMessage",
    "retry_policy_for",
]
