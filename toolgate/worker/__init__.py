"""The worker process: workflows, activities and the governance interceptor."""

from .context import HEADER, ContextPropagation, call_context, read_context
from .governance import GovernanceInterceptor
from .runner import build_worker

__all__ = [
    "HEADER",
    "ContextPropagation",
    "GovernanceInterceptor",
    "build_worker",
    "call_context",
    "read_context",
]
