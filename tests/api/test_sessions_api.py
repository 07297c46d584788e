"""Conversations over REST: a session, messages that start or steer runs, the SSE stream."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx

from ..helpers import TenantKeys

SCRIPT = {"provider": "scripted", "system_prompt": "Be brief.", "script": {"turns": [
    {"tool_calls": [{"name": "list_files", "arguments": {}},
                    {"name": "read_file", "arguments": {"path": "missing.txt"}}]},
    {"text": "There are no files."}]}}  # fmt: skip


async def _agent(api: httpx.AsyncClient, acme: TenantKeys, llm: dict[str, Any]) -> str:
    name = f"chat-{uuid.uuid4().hex[:6]}"
    agent = (await api.post("/v1/agents", json={"name": name}, headers=acme.admin)).json()["id"]
    put = await api.put(f"/v1/agents/{agent}/llm", json=llm, headers=acme.admin)
    assert put.status_code == 200, put.text
    return str(agent)


async def _events(api: httpx.AsyncClient, acme: TenantKeys, run_id: str) -> list[tuple[str, Any]]:
    events = []
    async with api.stream("GET", f"/v1/runs/{run_id}/events", headers=acme.user) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((kind, json.loads(line.removeprefix("data: "))))
    return events


async def test_a_message_starts_a_run_that_streams_its_events(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _agent(api, acme, SCRIPT)
    session = (await api.post("/v1/sessions", json={"agent_id": agent}, headers=acme.user)).json()
    sent = await api.post(f"/v1/sessions/{session['id']}/messages", json={"text": "any files?"},
                          headers=acme.user)  # fmt: skip
    assert sent.status_code == 202 and sent.json()["delivered"] == "started"
    run_id = sent.json()["run_id"]
    events = await _events(api, acme, run_id)
    kinds = [k for k, _ in events]
    assert kinds[0] == "user" and kinds[-1] == "done"
    assert [d["name"] for k, d in events if k == "tool_started"] == ["list_files", "read_file"]
    finished = [d for k, d in events if k == "tool_finished"]
    assert [f["is_error"] for f in finished] == [False, True]  # missing.txt: not_found
    assert ("assistant", {"index": 4, "text": "There are no files."}) in events
    assert events[-1][1]["state"] == "completed"
    stored = (await api.get(f"/v1/sessions/{session['id']}/messages", headers=acme.user)).json()
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "tool", "assistant"]
    status = (await api.get(f"/v1/runs/{run_id}", headers=acme.user)).json()
    assert status["state"] == "completed" and status["iterations"] == 2
    late = await api.post(f"/v1/runs/{run_id}/messages", json={"text": "hi"}, headers=acme.user)
    assert late.status_code == 409 and late.json()["code"] == "run_finished"


async def test_the_next_message_starts_a_run_with_the_whole_conversation(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _agent(api, acme, SCRIPT)
    session = (await api.post("/v1/sessions", json={"agent_id": agent}, headers=acme.user)).json()
    path = f"/v1/sessions/{session['id']}/messages"
    first = (await api.post(path, json={"text": "one"}, headers=acme.user)).json()["run_id"]
    await _events(api, acme, first)
    second = await api.post(path, json={"text": "two"}, headers=acme.user)
    assert second.json()["run_id"].endswith("-2") and second.json()["delivered"] == "started"
    await _events(api, acme, second.json()["run_id"])
    history = (await api.get(f"/v1/runs/{second.json()['run_id']}/history",
                             headers=acme.user)).json()  # fmt: skip
    assert [m["content"] for m in history if m["role"] == "user"] == ["one", "two"]
    stored = (await api.get(path, headers=acme.user)).json()
    assert len(stored) == 7  # 5 of the first run, the second user message, its answer
    page = (await api.get(path, params={"offset": 1, "limit": 2}, headers=acme.user)).json()
    assert [m["role"] for m in page] == ["assistant", "tool"]


async def test_a_failing_provider_ends_the_run_with_a_clear_state(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _agent(api, acme, {"provider": "anthropic", "model": "claude-x",
                                     "api_key_secret": "anthropic_key"})  # fmt: skip
    session = (await api.post("/v1/sessions", json={"agent_id": agent}, headers=acme.user)).json()
    run_id = (await api.post(f"/v1/sessions/{session['id']}/messages", json={"text": "hi"},
                             headers=acme.user)).json()["run_id"]  # fmt: skip
    done = (await _events(api, acme, run_id))[-1]
    assert done[0] == "done" and done[1]["state"] == "failed"
    assert "PUT /v1/secrets/anthropic_key" in done[1]["error"]


async def test_bad_llm_settings_are_refused(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    agent = (await api.post("/v1/agents", json={"name": "x"}, headers=acme.admin)).json()["id"]
    for bad in ({"provider": "gpt"}, {"max_iterations": 0}, {"parallel_tool_calls": 99}):
        response = await api.put(f"/v1/agents/{agent}/llm", json=bad, headers=acme.admin)
        assert response.status_code == 422, bad


async def test_session_tools_list_read_and_send_across_sessions(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    listener = await _agent(api, acme, {"provider": "scripted",
                                        "script": {"turns": [{"text": "noted"}]}})  # fmt: skip
    inbox = (await api.post("/v1/sessions", json={"agent_id": listener}, headers=acme.user)).json()
    sender = await _agent(api, acme, {"provider": "scripted", "script": {"turns": [
        {"tool_calls": [{"name": "sessions_list"}, {"name": "session_status"},
                        {"name": "sessions_send",
                         "arguments": {"session_id": inbox["id"], "text": "ping from sender"}},
                        {"name": "sessions_history", "arguments": {"session_id": inbox["id"]}}]},
        {"text": "sent"}]}})  # fmt: skip
    mine = (await api.post("/v1/sessions", json={"agent_id": sender}, headers=acme.user)).json()
    run_id = (await api.post(f"/v1/sessions/{mine['id']}/messages", json={"text": "go"},
                             headers=acme.user)).json()["run_id"]  # fmt: skip
    assert (await _events(api, acme, run_id))[-1][1]["state"] == "completed"
    tools = [m for m in (await api.get(f"/v1/runs/{run_id}/history", headers=acme.user)).json()
             if m["role"] == "tool"]  # fmt: skip
    listed = json.loads(tools[0]["content"])
    assert [s["id"] for s in listed] == [mine["id"]]  # this agent's sessions only
    assert json.loads(tools[1]["content"])["state"] == "running"
    assert tools[2]["content"].startswith(f"message started to session {inbox['id']}")
    assert tools[3]["is_error"] and "no session" in tools[3]["content"]  # not this agent's
    delivered = (await api.get(f"/v1/sessions/{inbox['id']}", headers=acme.user)).json()
    await _events(api, acme, delivered["current_run"])
    stored = (await api.get(f"/v1/sessions/{inbox['id']}/messages", headers=acme.user)).json()
    assert [m["content"] for m in stored] == ["ping from sender", "noted"]
