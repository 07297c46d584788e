from __future__ import annotations

import uuid

import httpx
import pytest

from ..helpers import TenantKeys


@pytest.fixture
def api(api: httpx.AsyncClient, acme: TenantKeys) -> httpx.AsyncClient:
    """The API as acme's user key sees it (agents are made with the admin key)."""
    api.headers.update(acme.user)
    return api


async def _agent(api: httpx.AsyncClient, tools: list[str], acme: TenantKeys) -> str:
    response = await api.post(
        "/v1/agents",
        json={"name": f"coder-{uuid.uuid4().hex[:6]}", "tool_policy": {"allow": tools}},
        headers=acme.admin,
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def test_list_tools_shows_what_this_agent_may_use(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _agent(api, ["read_file", "list_files"], acme)
    tools = (await api.get("/v1/tools", params={"agent_id": agent})).json()
    assert [(t["name"], t["capability"]) for t in tools] == [
        ("list_files", "read-only"),
        ("read_file", "read-only"),
    ]
    assert tools[1]["parameters"]["required"] == ["path"]


async def test_invoke_write_then_read(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    agent = await _agent(api, ["group:fs"], acme)
    write = await api.post(
        "/v1/tools/write_file/invoke",
        json={"agent_id": agent, "arguments": {"path": "a.txt", "content": "hello"}},
    )
    assert write.status_code == 200, write.text
    body = write.json()
    assert body["result"]["for_llm"] == "wrote 5 bytes to a.txt"
    assert body["workflow_id"].startswith("toolcall-")
    assert body["tool_call_id"] == f"{body['run_id']}:{body['call_id']}"
    read = await api.post(
        "/v1/tools/read_file/invoke", json={"agent_id": agent, "arguments": {"path": "a.txt"}}
    )
    assert read.json()["result"]["for_llm"] == "hello"


async def test_repeating_a_call_id_returns_the_first_result_without_rerunning(
    api, acme: TenantKeys
) -> None:
    agent = await _agent(api, ["group:fs"], acme)
    await api.post(
        "/v1/tools/write_file/invoke",
        json={"agent_id": agent, "arguments": {"path": "n.txt", "content": "a=1\n"}},
    )
    edit = {
        "agent_id": agent,
        "call_id": "llm-call-7",
        "arguments": {"path": "n.txt", "old_string": "a=1", "new_string": "a=2"},
    }
    first = await api.post("/v1/tools/edit/invoke", json=edit)
    again = await api.post("/v1/tools/edit/invoke", json=edit)
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()  # a second run would have said edit_no_match
    read = await api.post(
        "/v1/tools/read_file/invoke", json={"agent_id": agent, "arguments": {"path": "n.txt"}}
    )
    assert read.json()["result"]["for_llm"] == "a=2\n"


async def test_tool_level_errors_are_results_not_http_errors(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _agent(api, ["read_file"], acme)
    response = await api.post(
        "/v1/tools/read_file/invoke",
        json={"agent_id": agent, "arguments": {"path": "../../etc/passwd"}},
    )
    assert response.status_code == 200
    assert response.json()["result"]["error_code"] == "path_denied"


async def test_unknown_tool(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    agent = await _agent(api, ["*"], acme)
    response = await api.post("/v1/tools/rm_rf/invoke", json={"agent_id": agent})
    assert response.status_code == 404
    assert response.json()["code"] == "tool_not_found"


async def test_tool_not_allowed_is_refused_by_the_gate_and_audited(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _agent(api, ["read_file"], acme)
    response = await api.post(
        "/v1/tools/write_file/invoke",
        json={"agent_id": agent, "arguments": {"path": "x", "content": "y"}},
    )
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "tool_not_allowed" and "explain=true" in body["message"]
    audit = (await api.get("/v1/audit", params={"agent_id": agent})).json()
    assert [(a["tool"], a["outcome"]) for a in audit] == [("write_file", "refused")]


async def test_arguments_that_fail_the_schema(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    agent = await _agent(api, ["read_file"], acme)
    response = await api.post(
        "/v1/tools/read_file/invoke", json={"agent_id": agent, "arguments": {"path": 3}}
    )
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_arguments"
    assert "/path" in response.json()["message"]


async def test_non_json_body(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    response = await api.post(
        "/v1/tools/read_file/invoke",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_json"


async def test_body_missing_agent_id(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    response = await api.post("/v1/tools/read_file/invoke", json={"arguments": {}})
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
    assert "agent_id" in response.json()["message"]


async def test_unknown_agent(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    response = await api.get("/v1/tools", params={"agent_id": "not-an-agent"})
    assert response.status_code == 404
    assert response.json()["code"] == "agent_not_found"


@pytest.mark.rate_limit(per_minute=0.01, burst=2)
async def test_rate_limit_gives_429_per_session(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    agent = await _agent(api, ["list_files"], acme)
    session = f"hot-{uuid.uuid4().hex}"
    call = {"agent_id": agent, "session_key": session, "arguments": {}}
    codes = [
        (await api.post("/v1/tools/list_files/invoke", json=call)).status_code for _ in range(3)
    ]
    assert codes == [200, 200, 429]
    refused = await api.post("/v1/tools/list_files/invoke", json=call)
    assert refused.json()["code"] == "rate_limited"
    other = {**call, "session_key": f"calm-{uuid.uuid4().hex}"}
    assert (await api.post("/v1/tools/list_files/invoke", json=other)).status_code == 200


async def test_agent_with_unknown_allowed_entries_gets_warnings(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    response = await api.post(
        "/v1/agents",
        json={"name": "x", "tool_policy": {"allow": ["read_file", "telepathy"]}},
        headers=acme.admin,
    )
    assert response.status_code == 201
    assert response.json()["warnings"] == [
        "tool_policy.allow: 'telepathy' names no registered tool"
    ]


async def test_duplicate_agent_name_in_a_tenant(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    body = {"name": "dup"}
    assert (await api.post("/v1/agents", json=body, headers=acme.admin)).status_code == 201
    second = await api.post("/v1/agents", json=body, headers=acme.admin)
    assert second.status_code == 409 and second.json()["code"] == "agent_exists"


async def test_healthz(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    response = await api.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "temporal": "ok"}
