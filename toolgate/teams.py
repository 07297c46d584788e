"""Starting a team's board, shared by the REST API and the worker's team_tasks port."""

from __future__ import annotations

from typing import TYPE_CHECKING

from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy

from .store import Team
from .workflows import TeamBoardInput, TeamBoardWorkflow

if TYPE_CHECKING:
    from .services import Services


async def ensure_board(services: Services, client: Client, team: Team) -> None:
    """Start the team's TeamBoard workflow unless it runs (idempotent)."""
    start = TeamBoardInput(
        tenant_id=team.tenant_id, team_id=team.id, lead=team.lead_agent_id,
        members=team.roles(), sessions={m.agent_id: m.session_id for m in team.members},
    )  # fmt: skip
    await client.start_workflow(
        TeamBoardWorkflow.run, start, id=team.board_id, task_queue=services.settings.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        static_summary=f"team {team.name} ({team.tenant_id})",
    )  # fmt: skip
