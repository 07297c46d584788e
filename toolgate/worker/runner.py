"""Builds and runs a tool worker: the ToolCall workflow, the dynamic tool activity,
and the governance interceptor in front of it."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from ..activities import run_tool
from ..activities.agent import AgentActivities
from ..activities.child_runs import ChildRunActivities
from ..activities.teams import TeamActivities
from ..activities.tool_call import HEARTBEAT_EVERY_SECONDS
from ..workflows import (
    AgentRunWorkflow,
    DelegationWorkflow,
    SubagentWorkflow,
    TeamBoardWorkflow,
    ToolCallWorkflow,
)
from .governance import GovernanceInterceptor

HEARTBEAT_THROTTLE = timedelta(seconds=HEARTBEAT_EVERY_SECONDS)

if TYPE_CHECKING:  # services imports the worker's context propagation
    from ..services import Services


def build_worker(
    client: Client, services: Services, *, max_concurrent_activities: int = 64
) -> Worker:
    settings = services.settings
    services.session_directory.bind(services, client)
    services.team_boards.bind(services, client)
    teams = TeamActivities(services, client)
    agent = AgentActivities(services)
    children = ChildRunActivities(services, client)
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[
            ToolCallWorkflow,
            AgentRunWorkflow,
            SubagentWorkflow,
            DelegationWorkflow,
            TeamBoardWorkflow,
        ],
        activities=[
            run_tool,
            agent.turn_setup,
            agent.llm_call,
            agent.pre_tool_use,
            agent.session_record,
            children.admit,
            children.finish,
            children.archive,
            children.deliver,
            teams.mirror,
            teams.deliver,
        ],
        interceptors=[GovernanceInterceptor(services.governance, settings.workspaces)],
        max_concurrent_activities=max_concurrent_activities,
        # A cancel reaches a running tool with its next heartbeat sent to the server;
        # by default those are throttled to 24 s (0.8 of the heartbeat timeout).
        max_heartbeat_throttle_interval=HEARTBEAT_THROTTLE,
        workflow_runner=SandboxedWorkflowRunner(restrictions=_RESTRICTIONS),
    )


# Our workflow modules import only deterministic code (pydantic models, the retry
# table); passing them through saves re-importing them for every workflow run.
_RESTRICTIONS = SandboxRestrictions.default.with_passthrough_modules(
    "toolgate", "pydantic", "pydantic_core", "jsonschema", "annotated_types"
)
