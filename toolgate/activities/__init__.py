"""Temporal activities. Names are a persisted contract (docs/contracts.md)."""

from .tool_call import ApprovedCall, ToolCall, approved_call, run_tool

__all__ = ["ApprovedCall", "ToolCall", "approved_call", "run_tool"]
