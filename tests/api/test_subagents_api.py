"""Subagents and delegations over REST, on the real dev server (real time: archival
timers never fire during the tests, and children may outlive their parents)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from ..helpers import TenantKeys, eventually

HOLD = {"turns": [{"tool_calls": [{"name": "exec", "arguments": {"command": "sleep 120"}}]},
                  {"text": "held"}]}  # fmt: skip


def _spawn(**args: Any) -> dict[str, Any]:
    return {"name": "spawn", "arguments": args}


async def _agent(api: httpx.AsyncClient, acme: TenantKeys, name: str, llm: dict[str, Any],
                 policy: dict[str, Any] | None = None) -> str:  # fmt: skip
    body = {
        "name": f"{name}-{uuid.uuid4().hex[:6]}",
        "tool_policy": policy or {"profile": "coding"},
    }
    agent = (await api.post("/v1/agents", json=body, headers=acme.admin)).json()["id"]
    put = await api.put(f"/v1/agents/{agent}/llm", json=llm, headers=acme.admin)
    assert put.status_code == 200, put.text
    return str(agent)


async def _start(
    api: httpx.AsyncClient, acme: TenantKeys, agent: str, text: str
) -> tuple[str, str]:
    session = (await api.post("/v1/sessions", json={"agent_id": agent}, headers=acme.user)).json()
    sent = await api.post(f"/v1/sessions/{session['id']}/messages", json={"text": text},
                          headers=acme.user)  # fmt: skip
    return session["id"], sent.json()["run_id"]


async def test_list_get_steer_and_cancel_a_runs_subagents(
    dev_api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    api, h = dev_api, acme.user
    llm = {"provider": "scripted", "script": {"turns": [
        {"tool_calls": [_spawn(task="hold", label="a"), _spawn(task="hold", label="b")]},
        {"text": "waiting for my subagents"}]},
        "subagent_scripts": {"hold": HOLD,
                             "quick": {"turns": [{"text": "quick answer"}]}}}  # fmt: skip
    agent = await _agent(api, acme, "parent", llm)
    _, run = await _start(api, acme, agent, "fan out")

    async def two_running() -> list[dict[str, Any]]:
        listed = (await api.get(f"/v1/runs/{run}/subagents", headers=h)).json()
        return listed if [c["state"] for c in listed] == ["running", "running"] else []

    a, b = await eventually(two_running, "two running subagents")
    assert (a["label"], a["kind"], a["mode"], a["target_agent_id"]) == (
        "a",
        "spawn",
        "async",
        agent,
    )
    got = await api.get(f"/v1/subagents/{a['id']}", headers=h)
    assert got.status_code == 200 and got.json()["task"] == "hold"
    steered = await api.post(f"/v1/subagents/{a['id']}/steer", json={"task": "quick"}, headers=h)
    assert steered.status_code == 201, steered.text
    assert (steered.json()["label"], steered.json()["state"]) == ("a", "running")
    cancelled = await api.post(f"/v1/subagents/{b['id']}/cancel", headers=h)
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"

    async def finished() -> bool:
        return (await api.get(f"/v1/runs/{run}", headers=h)).json()["state"] == "completed"

    await eventually(finished, "the run completes once its subagents have ended")
    history = (await api.get(f"/v1/runs/{run}/history", headers=h)).json()
    assert f"[subagent {steered.json()['id']} (a) completed] quick answer" in [
        m["content"] for m in history if m["role"] == "user"]  # fmt: skip
    again = await api.post(f"/v1/subagents/{b['id']}/cancel", headers=h)
    assert again.status_code == 409 and again.json()["code"] == "subagent_finished"
    late = await api.post(f"/v1/subagents/{a['id']}/steer", json={"task": "x"}, headers=h)
    assert late.status_code == 409 and late.json()["code"] == "subagent_finished"
    empty = await api.post(f"/v1/subagents/{a['id']}/steer", json={"task": ""}, headers=h)
    assert empty.status_code == 422
    missing = await api.get(f"/v1/subagents/{run}-sub-99", headers=h)
    assert missing.status_code == 404 and missing.json()["code"] == "subagent_not_found"
    listed = (await api.get(f"/v1/runs/{run}/subagents", headers=h)).json()
    assert [c["state"] for c in listed] == ["cancelled", "cancelled", "completed"]
    nobody = await api.get("/v1/runs/agentrun-nobody-1/subagents", headers=h)
    assert nobody.status_code == 404 and nobody.json()["code"] == "run_not_found"


async def test_a_cancelled_parent_stops_its_subagents_and_sync_delegations_but_not_async_ones(
    dev_api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    """The async delegation outlives its parent; its answer reaches the parent's session,
    which starts a new run with it."""
    api, h = dev_api, acme.admin
    helper = await _agent(api, acme, "helper", {"provider": "scripted",
        "script": {"turns": [{"text": "?"}]}, "subagent_scripts": {"hold": HOLD, "work": {
            "turns": [{"tool_calls": [{"name": "exec", "arguments": {"command": "sleep 2"}}]},
                      {"text": "helper finished the work"}]}}})  # fmt: skip
    parent_llm = {"provider": "scripted", "script": {"turns": [
        {"tool_calls": [_spawn(task="hold"),
                        {"name": "delegate", "arguments": {"agent": helper, "task": "work",
                                                           "mode": "async"}}]},
        {"tool_calls": [{"name": "delegate", "arguments": {"agent": helper, "task": "hold"}}]},
        {"text": "thanks"}]}, "subagent_scripts": {"hold": HOLD}}  # fmt: skip
    parent = await _agent(api, acme, "lead", parent_llm, {"profile": "full"})
    link = await api.post("/v1/agent-links", json={"source_agent_id": parent,
                          "target_agent_id": helper}, headers=h)  # fmt: skip
    assert link.status_code == 201, link.text
    session, run = await _start(api, acme, parent, "go")

    async def three_running() -> list[dict[str, Any]]:
        listed = (await api.get(f"/v1/runs/{run}/subagents", headers=h)).json()
        return listed if len(listed) == 3 else []

    children = await eventually(three_running, "a subagent, an async and a sync delegation")
    assert [(c["kind"], c["mode"]) for c in children] == [
        ("spawn", "async"), ("delegate", "async"), ("delegate", "sync")]  # fmt: skip
    assert (await api.post(f"/v1/runs/{run}/cancel", headers=h)).status_code == 202

    async def states() -> dict[str, str]:
        listed = (await api.get(f"/v1/runs/{run}/subagents", headers=h)).json()
        found = {c["id"].rsplit("-", 2)[1] + c["id"][-1]: c["state"] for c in listed}
        return found if "running" not in found.values() else {}

    assert await eventually(states, "every child ended") == {
        "sub1": "cancelled", "del2": "completed", "del3": "cancelled"}  # fmt: skip
    assert (await api.get(f"/v1/runs/{run}", headers=h)).json()["state"] == "cancelled"

    async def delivered() -> list[str]:
        stored = (await api.get(f"/v1/sessions/{session}/messages", headers=h)).json()
        return [m["content"] for m in stored if "helper finished the work" in m["content"]]

    report = await eventually(delivered, "the async delegation's answer in the session")
    assert report[0] == f"[delegate {run}-del-2 ({helper}) completed] helper finished the work"
    current = (await api.get(f"/v1/sessions/{session}", headers=h)).json()["current_run"]
    assert current.endswith("-2")  # the answer started the session's next run
    delegations = (await api.get(f"/v1/delegations?agent_id={helper}", headers=h)).json()
    assert {d["id"] for d in delegations} == {f"{run}-del-2", f"{run}-del-3"}


async def test_agent_links_are_checked_on_write(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    h = acme.admin
    one = (await api.post("/v1/agents", json={"name": "one"}, headers=h)).json()["id"]
    two = (await api.post("/v1/agents", json={"name": "two"}, headers=h)).json()["id"]
    body = {"source_agent_id": one, "target_agent_id": two, "modes": ["sync"]}
    created = await api.post("/v1/agent-links", json=body, headers=h)
    assert created.status_code == 201 and created.json()["direction"] == "outbound"
    twice = await api.post("/v1/agent-links", json=body, headers=h)
    assert twice.status_code == 409 and twice.json()["code"] == "link_exists"
    itself = await api.post("/v1/agent-links", json={**body, "target_agent_id": one}, headers=h)
    assert itself.status_code == 422 and itself.json()["code"] == "invalid_link"
    ghost = await api.post("/v1/agent-links", json={**body, "target_agent_id": str(uuid.uuid4())},
                           headers=h)  # fmt: skip
    assert ghost.status_code == 404 and ghost.json()["code"] == "agent_not_found"
    for bad in ({"modes": []}, {"modes": ["later"]}, {"direction": "inbound"}):
        refused = await api.post("/v1/agent-links", json={**body, **bad}, headers=h)
        assert refused.status_code == 422, bad
    as_user = await api.post("/v1/agent-links", json=body, headers=acme.user)
    assert as_user.status_code == 403
    listed = (await api.get("/v1/agent-links", headers=acme.user)).json()
    assert [link["id"] for link in listed] == [created.json()["id"]]
    gone = await api.delete(f"/v1/agent-links/{created.json()['id']}", headers=h)
    assert gone.status_code == 204
    again = await api.delete(f"/v1/agent-links/{created.json()['id']}", headers=h)
    assert again.status_code == 404 and again.json()["code"] == "link_not_found"
