"""The TeamBoard workflow on a time-skipping server of its own: the claim race, the
validators' refusals, the Postgres mirror, ask_user timing out, continue-as-new."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from toolgate.services import Services
from toolgate.store import Team
from toolgate.teams import ensure_board
from toolgate.tools.team import BoardAction, Question
from toolgate.workflows import TeamBoardInput, TeamBoardWorkflow

from ..helpers import eventually, new_tenant


async def _team(services: Services, teammates: int = 2, name: str = "crew") -> Team:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    lead = await services.agents.create(tenant, "lead", {})
    noted = {"provider": "scripted", "script": {"turns": [{"text": "noted"}]}}
    await services.agents.set_other_config(tenant, lead.id, "llm", noted)
    members = [((await services.agents.create(tenant, f"mate{i}", {})).id, f"role{i}")
               for i in range(teammates)]  # fmt: skip
    return await services.teams.create(tenant, name, lead.id, members)


async def _act(client: Client, team: Team, actor: str, action: str, **kw: Any) -> Any:
    handle = client.get_workflow_handle_for(TeamBoardWorkflow.run, team.board_id)
    reply = await handle.execute_update(
        TeamBoardWorkflow.act,
        BoardAction(action=action, actor=actor, **kw),  # type: ignore[arg-type]
    )
    return reply.result


async def _refused(client: Client, team: Team, actor: str, action: str, **kw: Any) -> str:
    with pytest.raises(WorkflowUpdateFailedError) as caught:
        await _act(client, team, actor, action, **kw)
    return str(getattr(caught.value.cause, "type", ""))


async def test_twenty_concurrent_claims_have_exactly_one_winner(
    own_client: Client, services: Services, own_worker: Worker
) -> None:
    team = await _team(services, teammates=20)
    await ensure_board(services, own_client, team)
    lead = team.lead_agent_id
    await _act(own_client, team, lead, "create", title="the one task")
    mates = [m.agent_id for m in team.members if m.role != "lead"]

    async def claim(agent: str) -> str:
        try:
            await _act(own_client, team, agent, "claim", task_id="T1")
            return "won"
        except WorkflowUpdateFailedError as exc:
            return str(getattr(exc.cause, "type", ""))

    outcomes = await asyncio.gather(*(claim(a) for a in mates))
    assert outcomes.count("won") == 1 and outcomes.count("task_claimed") == 19, outcomes
    winner = mates[outcomes.index("won")]
    handle = own_client.get_workflow_handle_for(TeamBoardWorkflow.run, team.board_id)
    task = await handle.query(TeamBoardWorkflow.task, "T1")
    assert task is not None and (task.status, task.owner) == ("in_progress", winner)


async def test_illegal_moves_are_refused_and_dependencies_unblock(
    own_client: Client, services: Services, own_worker: Worker
) -> None:
    team = await _team(services)
    await ensure_board(services, own_client, team)
    lead = team.lead_agent_id
    ana, ben = (team.members[[m.role for m in team.members].index(r)].agent_id
                for r in ("role0", "role1"))  # fmt: skip
    await _act(own_client, team, lead, "create", tasks=[
        {"title": "A"}, {"title": "B"}, {"title": "C", "blocked_by": ["T1", "T2"]}])  # fmt: skip
    assert await _refused(own_client, team, lead, "create", title="x",
                          blocked_by=["T9"]) == "unknown_dependency"  # fmt: skip
    assert await _refused(own_client, team, lead, "update", task_id="T1",
                          blocked_by=["T3"]) == "dependency_cycle"  # fmt: skip
    assert await _refused(own_client, team, ana, "claim", task_id="T3") == "task_blocked"
    await _act(own_client, team, ana, "claim", task_id="T1")
    assert await _refused(own_client, team, ben, "complete", task_id="T1") == "not_owner"
    assert await _refused(own_client, team, ana, "approve", task_id="T1") == "not_lead"
    await _act(own_client, team, ana, "complete", task_id="T1", result="a done")
    await _act(own_client, team, ben, "claim", task_id="T2")
    await _act(own_client, team, ben, "complete", task_id="T2", result="b done")
    assert (await _act(own_client, team, ana, "claim", task_id="T3"))["owner"] == ana
    settled = ["completed", "completed", "in_progress"]

    async def mirrored() -> list[str]:  # the mirror is written right after the moves
        statuses = [t.status for t in await services.teams.tasks(team.id)]
        return statuses if statuses == settled else []

    assert await eventually(mirrored, "the mirror") == settled
    assert [t.id for t in await services.teams.tasks(team.id, query="done")] == ["T1", "T2"]
    history = [e.action for e in await services.teams.events(team.id, task_id="T3")]
    assert history == ["create", "unblocked", "claim"]
    lead_session = team.session_of(lead)
    assert lead_session is not None

    async def news() -> list[str]:
        told = [m.content for m in await services.sessions_store.messages(lead_session)
                if m.content.startswith("teammate:")]  # fmt: skip
        return told if len(told) >= 2 else []

    told = await eventually(news, "the teammates' news in the lead's session")
    assert told[:2] == [f"teammate: {ana} (role0) completed T1: a done",
                        f"teammate: {ben} (role1) completed T2: b done"]  # fmt: skip


async def test_a_question_nobody_answers_times_out_and_the_asker_is_told(
    own_client: Client, services: Services, own_worker: Worker,
    own_time_skipping_server: WorkflowEnvironment,
) -> None:  # fmt: skip
    team = await _team(services)
    await ensure_board(services, own_client, team)
    ana = next(m.agent_id for m in team.members if m.role != "lead")
    asked = await _act(own_client, team, ana, "ask_user", question="which format?",
                       timeout_minutes=30)  # fmt: skip
    handle = own_client.get_workflow_handle_for(TeamBoardWorkflow.run, team.board_id)
    assert [q.state for q in await handle.query(TeamBoardWorkflow.questions)] == ["waiting"]
    await own_time_skipping_server.sleep(timedelta(minutes=31))  # half an hour, at once

    async def closed() -> list[Question]:  # the board handles its timer right after
        questions = await handle.query(TeamBoardWorkflow.questions)
        return questions if questions[0].state != "waiting" else []

    questions = await eventually(closed, "the question's timeout")
    assert [(q.id, q.state) for q in questions] == [(asked["id"], "timeout")]
    assert await _refused(own_client, team, team.lead_agent_id, "answer",
                          question_id=asked["id"], answer="late") == "question_closed"  # fmt: skip


async def test_the_board_continues_as_new_and_keeps_working(
    own_client: Client, services: Services, own_worker: Worker
) -> None:
    team = await _team(services)
    start = TeamBoardInput(
        tenant_id=team.tenant_id, team_id=team.id, lead=team.lead_agent_id,
        members=team.roles(), sessions={}, continue_after=3)  # fmt: skip
    handle = await own_client.start_workflow(TeamBoardWorkflow.run, start, id=team.board_id,
                                             task_queue=services.settings.task_queue)  # fmt: skip
    first_run = handle.result_run_id
    lead = team.lead_agent_id
    ana = next(m.agent_id for m in team.members if m.role != "lead")
    for n in range(4):
        await _act(own_client, team, lead, "create", title=f"task {n}")

    async def continued() -> bool:
        current = (await own_client.get_workflow_handle(team.board_id).describe()).run_id
        return current != first_run

    await eventually(continued, "the board's continue-as-new")
    await _act(own_client, team, ana, "claim", task_id="T2")  # after continue-as-new
    assert await _refused(own_client, team, ana, "claim", task_id="T2") == "task_claimed"
    latest = own_client.get_workflow_handle_for(TeamBoardWorkflow.run, team.board_id)
    assert [t.id for t in await latest.query(TeamBoardWorkflow.tasks)] == ["T1", "T2", "T3", "T4"]


async def test_an_update_that_arrives_with_the_start_sees_the_board(
    dev_client: Client, services: Services, dev_worker: Worker
) -> None:
    """Update-with-start puts the update in the board's first task: the board's state is
    built in ``@workflow.init``, so the lead is already a member when it is checked."""
    from temporalio.client import WithStartWorkflowOperation
    from temporalio.common import WorkflowIDConflictPolicy

    team = await _team(services)
    start = TeamBoardInput(tenant_id=team.tenant_id, team_id=team.id, lead=team.lead_agent_id,
                           members=team.roles(), sessions={})  # fmt: skip
    operation = WithStartWorkflowOperation(
        TeamBoardWorkflow.run, start, id=team.board_id, task_queue=services.settings.task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )  # fmt: skip
    reply = await dev_client.execute_update_with_start_workflow(
        TeamBoardWorkflow.act,
        BoardAction(action="create", actor=team.lead_agent_id, title="first"),
        start_workflow_operation=operation,
    )  # fmt: skip
    assert reply.result[0]["id"] == "T1"
