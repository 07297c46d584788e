"""A team over REST on the real dev server: the issue's "done when", TEAM.md for the
lead only, a person answering a teammate's question, and bad input."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from temporalio.testing import WorkflowEnvironment

from toolgate.activities.agent import AgentActivities, AgentRef
from toolgate.services import Services

from ..helpers import TenantKeys, eventually, toolgate_client


def _board(**args: Any) -> dict[str, Any]:
    return {"name": "team_tasks", "arguments": args}


async def _agent(api: httpx.AsyncClient, acme: TenantKeys, name: str, turns: list[Any]) -> str:
    body = {"name": f"{name}-{uuid.uuid4().hex[:4]}", "tool_policy": {"profile": "full"}}
    agent = (await api.post("/v1/agents", json=body, headers=acme.admin)).json()["id"]
    llm = {"provider": "scripted", "script": {"turns": turns}}
    assert (
        await api.put(f"/v1/agents/{agent}/llm", json=llm, headers=acme.admin)
    ).status_code == 200
    return str(agent)


async def test_lead_posts_teammates_complete_the_blocked_task_opens_and_the_lead_answers(
    dev_api: httpx.AsyncClient, acme: TenantKeys, services: Services,
    temporal_dev_server: WorkflowEnvironment,
) -> None:  # fmt: skip
    api, h = dev_api, acme.admin
    lead = await _agent(api, acme, "lead", [
        {"tool_calls": [_board(action="create", tasks=[
            {"title": "Write the notes", "require_review": True},
            {"title": "Test the build", "require_review": True},
            {"title": "Publish", "blocked_by": ["T1", "T2"]}])]},
        {"text": "Posted three tasks."},
        {"tool_calls": [_board(action="approve", task_id="T1")]},
        {"text": "T1 approved."},
        {"tool_calls": [_board(action="approve", task_id="T2")]},
        {"text": "Notes and tests are approved; Publish is ready to claim."}])  # fmt: skip

    def mate(task: str, result: str) -> list[Any]:
        return [{"tool_calls": [_board(action="claim", task_id=task)]},
                {"tool_calls": [_board(action="complete", task_id=task, result=result)]},
                {"text": "done"}]  # fmt: skip

    ana = await _agent(api, acme, "ana", mate("T1", "notes written"))
    ben = await _agent(api, acme, "ben", mate("T2", "all green"))
    members = [{"agent_id": ana, "role": "writer"}, {"agent_id": ben, "role": "tester"}]
    created = await api.post("/v1/teams", headers=h, json={
        "name": "release", "lead_agent_id": lead, "members": members})  # fmt: skip
    assert created.status_code == 201, created.text
    team = created.json()
    sessions = {m["agent_id"]: m["session_id"] for m in team["members"]}
    roles = {m["agent_id"]: m["role"] for m in team["members"]}
    assert roles == {lead: "lead", ana: "writer", ben: "tester"}

    async def said(agent: str, text: str) -> bool:
        stored = (await api.get(f"/v1/sessions/{sessions[agent]}/messages", headers=h)).json()
        return any(text in m["content"] for m in stored if m["role"] == "assistant")

    async def send(agent: str, text: str) -> None:
        sent = await api.post(f"/v1/sessions/{sessions[agent]}/messages", json={"text": text},
                              headers=h)  # fmt: skip
        assert sent.status_code == 202, sent.text

    await send(lead, "Plan the release.")
    await eventually(lambda: said(lead, "Posted three tasks."), "the lead posts the tasks")
    tasks = (await api.get(f"/v1/teams/{team['id']}/tasks", headers=h)).json()
    assert [(t["id"], t["status"]) for t in tasks] == [
        ("T1", "pending"), ("T2", "pending"), ("T3", "blocked")]  # fmt: skip
    await send(ana, "Check the board.")
    await eventually(
        lambda: said(lead, "T1 approved."), "ana's work reaches the lead, who approves"
    )
    await send(ben, "Check the board.")
    final = "Notes and tests are approved; Publish is ready to claim."
    await eventually(lambda: said(lead, final), "the lead answers the user")

    async def settled() -> list[tuple[str, str]]:
        listed = (await api.get(f"/v1/teams/{team['id']}/tasks", headers=h)).json()
        found = [(t["id"], t["status"]) for t in listed]
        return found if found[-1][1] == "pending" else []

    assert await settled() or await eventually(settled, "the mirror") == [
        ("T1", "completed"), ("T2", "completed"), ("T3", "pending")]  # fmt: skip
    stored = (await api.get(f"/v1/sessions/{sessions[lead]}/messages", headers=h)).json()
    told = [m["content"] for m in stored if m["role"] == "user"]
    assert told[0] == "Plan the release."
    assert told[1].startswith(f"teammate: {ana} (writer) finished T1, waiting for your review")
    history = (await api.get(f"/v1/teams/{team['id']}/tasks/T3/history", headers=h)).json()
    assert [e["action"] for e in history] == ["create", "unblocked"]
    async with api.stream("GET", f"/v1/teams/{team['id']}/events?follow=false",
                          headers=h) as response:  # fmt: skip
        lines = [line async for line in response.aiter_lines() if line.startswith("event: ")]
    assert lines.count("event: approve") == 2 and "event: unblocked" in lines
    # The Temporal UI shows the board's updates: they are in its history.
    client = toolgate_client(temporal_dev_server)
    board = await client.get_workflow_handle(team["board_workflow_id"]).fetch_history()
    accepted = [e for e in board.events
                if e.HasField("workflow_execution_update_accepted_event_attributes")]  # fmt: skip
    assert len(accepted) == 7  # create, 2 claims, 2 completes, 2 approvals
    # TEAM.md reaches the lead's prompt, and nobody else's.
    setup = AgentActivities(services)
    lead_prompt = (
        await setup.turn_setup(AgentRef(tenant_id=acme.tenant_id, agent_id=lead))
    ).system_prompt
    mate_prompt = (
        await setup.turn_setup(AgentRef(tenant_id=acme.tenant_id, agent_id=ana))
    ).system_prompt
    assert "TEAM.md" in lead_prompt and f"(id {ana}): writer" in lead_prompt
    assert "TEAM.md" not in mate_prompt


async def test_a_person_answers_a_teammates_question_and_bad_input_is_refused(
    dev_api: httpx.AsyncClient, acme: TenantKeys, services: Services
) -> None:
    api, h = dev_api, acme.admin
    lead = await _agent(api, acme, "lead", [{"text": "ok"}])
    ana = await _agent(api, acme, "ana", [
        {"tool_calls": [_board(action="claim", task_id="T9"),
                        _board(action="ask_user", question="Markdown or HTML?")]},
        {"text": "asked"}])  # fmt: skip
    loner = await _agent(api, acme, "loner", [
        {"tool_calls": [_board(action="list")]}, {"text": "alone"}])  # fmt: skip
    team = (await api.post("/v1/teams", headers=h, json={"name": "q", "lead_agent_id": lead,
            "members": [{"agent_id": ana, "role": "writer"}]})).json()  # fmt: skip
    ana_session = next(m["session_id"] for m in team["members"] if m["agent_id"] == ana)
    await api.post(f"/v1/sessions/{ana_session}/messages", json={"text": "go"}, headers=h)

    async def asked() -> list[dict[str, Any]]:
        return (await api.get(f"/v1/teams/{team['id']}/questions", headers=h)).json()

    question = (await eventually(asked, "the question"))[0]
    assert (question["state"], question["asker"]) == ("waiting", ana)
    path = f"/v1/teams/{team['id']}/actions"
    answered = await api.post(path, headers=acme.user, json={
        "action": "answer", "question_id": question["id"], "answer": "Markdown"})  # fmt: skip
    assert answered.status_code == 200 and answered.json()["state"] == "answered"
    again = await api.post(path, headers=h, json={"action": "answer",
                           "question_id": question["id"], "answer": "HTML"})  # fmt: skip
    assert again.status_code == 409 and again.json()["code"] == "question_closed"

    async def heard() -> bool:
        stored = (await api.get(f"/v1/sessions/{ana_session}/messages", headers=h)).json()
        return any(m["content"] == f"user answered {question['id']}: Markdown" for m in stored)

    await eventually(heard, "the answer reaches the asker's session")
    stored = (await api.get(f"/v1/sessions/{ana_session}/messages", headers=h)).json()
    refused = next(m for m in stored if m["role"] == "tool")
    assert refused["is_error"] and "no task 'T9' on this board" in refused["content"]
    alone = (await api.post("/v1/sessions", json={"agent_id": loner}, headers=h)).json()["id"]
    await api.post(f"/v1/sessions/{alone}/messages", json={"text": "go"}, headers=h)

    async def lonely() -> list[dict[str, Any]]:
        stored = (await api.get(f"/v1/sessions/{alone}/messages", headers=h)).json()
        return [m for m in stored if m["role"] == "tool"]

    assert (
        "this agent is in no team" in (await eventually(lonely, "the tool's answer"))[0]["content"]
    )
    made = await api.post(path, headers=h, json={"action": "create", "title": "Style guide"})
    assert made.status_code == 200, made.text
    for move in (
        {"action": "comment", "task_id": "T1", "text": "see the wiki"},
        {"action": "comment", "task_id": "T1", "text": "wiki is down", "kind": "blocker"},
        {"action": "attach", "task_id": "T1", "name": "outline.md", "content": "# A"},
    ):
        assert (await api.post(path, headers=h, json=move)).status_code == 200

    async def detailed() -> dict[str, Any]:
        got = (await api.get(f"/v1/teams/{team['id']}/tasks/T1", headers=h)).json()
        return got if len(got.get("comments", [])) == 2 and got["attachments"] else {}

    detail = await eventually(detailed, "comments and attachments in the mirror")
    assert [(c["kind"], c["text"]) for c in detail["comments"]] == [
        ("note", "see the wiki"), ("blocker", "wiki is down")]  # fmt: skip
    assert detail["attachments"][0]["name"] == "outline.md"
    found = (await api.get(f"/v1/teams/{team['id']}/tasks?q=style", headers=h)).json()
    assert [t["title"] for t in found] == ["Style guide"]
    claim = await api.post(path, headers=h, json={"action": "claim", "task_id": "T9"})
    assert claim.status_code == 409 and claim.json()["code"] == "task_not_found"
    bogus = await api.post(path, headers=h, json={"action": "explode"})
    assert bogus.status_code == 422
    dup = await api.post("/v1/teams", headers=h, json={"name": "q", "lead_agent_id": lead})
    assert dup.status_code == 409 and dup.json()["code"] == "team_exists"
    ghost = await api.post("/v1/teams", headers=h, json={"name": "z",
                           "lead_agent_id": str(uuid.uuid4())})  # fmt: skip
    assert ghost.status_code == 404 and ghost.json()["code"] == "agent_not_found"
    assert (await api.get(f"/v1/teams/{uuid.uuid4()}", headers=h)).status_code == 404
    gone = await api.delete(f"/v1/teams/{team['id']}", headers=h)
    assert gone.status_code == 204
    assert (await api.get(f"/v1/teams/{team['id']}", headers=h)).status_code == 404


async def test_a_task_deep_in_a_large_board_is_found(
    api: httpx.AsyncClient, acme: TenantKeys, services: Services
) -> None:
    """The task route reads one row, whatever the board's size (it once scanned a page)."""
    from toolgate.tools.team import Task

    lead = (await api.post("/v1/agents", json={"name": "big-lead"}, headers=acme.admin)).json()
    team = await services.teams.create(acme.tenant_id, "big", lead["id"], [])
    tasks = [Task(id=f"T{n}", title=f"task {n}") for n in range(1, 1202)]
    await services.teams.mirror(team.id, tasks, [])
    got = await api.get(f"/v1/teams/{team.id}/tasks/T1201", headers=acme.user)
    assert got.status_code == 200 and got.json()["task"]["title"] == "task 1201"
    missing = await api.get(f"/v1/teams/{team.id}/tasks/T1202", headers=acme.user)
    assert missing.status_code == 404 and missing.json()["code"] == "task_not_found"
