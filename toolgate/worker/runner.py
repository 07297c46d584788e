"""Builds and runs a tool worker: the ToolCall workflow, the dynamic tool activity,
and the governance interceptor in front of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from temporalio.client import Client
from temporalio.worker import Worker

from ..activities import run_tool
from ..workflows import ToolCallWorkflow
from .governance import GovernanceInterceptor

if TYPE_CHECKING:  # services imports the worker's context propagation
    from ..services import Services


def build_worker(
    client: Client, services: Services, *, max_concurrent_activities: int = 64
) -> Worker:
    settings = services.settings
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[ToolCallWorkflow],
        activities=[run_tool],
        interceptors=[GovernanceInterceptor(services.governance, settings.workspaces)],
        max_concurrent_activities=max_concurrent_activities,
    )
