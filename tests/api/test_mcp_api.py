"""MCP over REST with a real worker: register a real stdio server, grant two of its
tools to an agent, see only those, call one through the gate (scrubbed, audited),
revoke, request access as a user, and every bad input of issue 8."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx

from toolgate.devstack import free_port
from toolgate.services import Services

from ..helpers import TenantKeys, bearer

NOTES = Path(__file__).parents[2] / "examples" / "mcp" / "notes_server.py"
ODD = Path(__file__).parents[1] / "mcp" / "servers" / "odd_server.py"
TOKEN = "notes-token-0123456789abcdef"


def _notes(name: str = "notes", **extra: Any) -> dict[str, Any]:
    return {"name": name, "command": sys.executable, "args": [str(NOTES)],
            "env": {"NOTES_TOKEN": TOKEN}, **extra}  # fmt: skip


async def _agent(api: httpx.AsyncClient, h: dict[str, str]) -> str:
    body = {"name": "assistant", "tool_policy": {"profile": "minimal", "also_allow": ["group:mcp"]}}
    created = await api.post("/v1/agents", json=body, headers=h)
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


async def _mcp_tools(
    api: httpx.AsyncClient, h: dict[str, str], agent: str, user: str = ""
) -> list[str]:
    listed = await api.get("/v1/tools", params={"agent_id": agent, "user_id": user}, headers=h)
    assert listed.status_code == 200, listed.text
    return sorted(t["name"] for t in listed.json() if t["name"].startswith("mcp_"))


async def _invoke(api: httpx.AsyncClient, h: dict[str, str], agent: str, tool: str,
                  arguments: dict[str, Any], **extra: Any) -> httpx.Response:  # fmt: skip
    body = {"agent_id": agent, "arguments": arguments, **extra}
    return await api.post(f"/v1/tools/{tool}/invoke", json=body, headers=h)


async def test_register_grant_two_tools_list_only_those_call_one_and_revoke(
    api: httpx.AsyncClient, acme: TenantKeys, services: Services
) -> None:
    h = acme.admin
    created = await api.post("/v1/mcp/servers", json=_notes(), headers=h)
    assert created.status_code == 201, created.text
    server = created.json()
    assert server["test"]["ok"] and server["env"] == {"NOTES_TOKEN": "****"}
    assert server["test"]["tools"] == ["mcp_notes_add_note", "mcp_notes_read_note",
                                       "mcp_notes_list_notes", "mcp_notes_show_config"]  # fmt: skip
    agent = await _agent(api, h)
    assert await _mcp_tools(api, h, agent) == []  # no grant, no tools
    two = {"tool_allow": ["add_note", "mcp_notes_show_config"]}  # either name works
    granted = await api.put(f"/v1/mcp/servers/{server['id']}/grants/agents/{agent}", json=two,
                            headers=h)  # fmt: skip
    assert granted.status_code == 200, granted.text
    assert granted.json()["tool_allow"] == ["add_note", "show_config"]
    assert await _mcp_tools(api, h, agent) == ["mcp_notes_add_note", "mcp_notes_show_config"]

    stored = await _invoke(api, h, agent, "mcp_notes_add_note", {"title": "t", "text": "hi"})
    assert stored.status_code == 200, stored.text
    assert stored.json()["result"]["for_llm"] == "stored t"
    leaked = (await _invoke(api, h, agent, "mcp_notes_show_config", {})).json()["result"]
    assert leaked["for_llm"].startswith("db=postgres://notes:")
    assert TOKEN not in leaked["for_llm"] and "hunter2hunter2" not in leaked["for_llm"]
    not_granted = await _invoke(api, h, agent, "mcp_notes_read_note", {"title": "t"})
    assert not_granted.status_code == 404 and not_granted.json()["code"] == "tool_not_found"
    bad_args = await _invoke(api, h, agent, "mcp_notes_add_note", {"title": 5})
    assert bad_args.status_code == 422 and bad_args.json()["code"] == "invalid_arguments"
    audit = (await api.get("/v1/audit", params={"agent_id": agent}, headers=h)).json()
    assert {e["tool"] for e in audit} >= {"mcp_notes_add_note", "mcp_notes_show_config"}
    assert TOKEN not in str(audit)

    revoked = await api.delete(f"/v1/mcp/servers/{server['id']}/grants/agents/{agent}", headers=h)
    assert revoked.status_code == 204
    after = await _invoke(api, h, agent, "mcp_notes_add_note", {"title": "u", "text": "x"})
    assert after.status_code == 404 and after.json()["code"] == "tool_not_found"
    assert await _mcp_tools(api, h, agent) == []


async def test_a_user_requests_access_and_an_admin_approves_in_one_transaction(
    api: httpx.AsyncClient, acme: TenantKeys, services: Services
) -> None:
    h = acme.admin
    server = (await api.post("/v1/mcp/servers", json=_notes(require_user_grant=True),
                             headers=h)).json()  # fmt: skip
    agent = await _agent(api, h)
    await api.put(f"/v1/mcp/servers/{server['id']}/grants/agents/{agent}", json={}, headers=h)
    alice = (await api.post("/v1/users", json={"name": "alice"}, headers=h)).json()["id"]
    key = (await api.post("/v1/keys", json={"role": "user", "user_id": alice}, headers=h)).json()
    as_alice = bearer(key["key"])
    assert await _mcp_tools(api, as_alice, agent) == []  # the server needs alice's own grant
    refused = await _invoke(api, as_alice, agent, "mcp_notes_list_notes", {})
    assert refused.json()["result"]["error_code"] == "mcp_access_denied"
    assert "access-requests" in refused.json()["result"]["for_llm"]

    asked = await api.post(f"/v1/mcp/servers/{server['id']}/access-requests",
                           json={"tool_allow": ["list_notes"], "reason": "to read notes"},
                           headers=as_alice)  # fmt: skip
    assert asked.status_code == 201, asked.text
    again = await api.post(f"/v1/mcp/servers/{server['id']}/access-requests", json={},
                           headers=as_alice)  # fmt: skip
    assert again.status_code == 409 and again.json()["code"] == "access_request_pending"
    pending = await api.get("/v1/mcp/access-requests?status=pending", headers=h)
    assert [r["id"] for r in pending.json()] == [asked.json()["id"]]
    as_user_approves = await api.post(f"/v1/mcp/access-requests/{asked.json()['id']}/approve",
                                      json={}, headers=as_alice)  # fmt: skip
    assert as_user_approves.status_code == 403
    approved = await api.post(f"/v1/mcp/access-requests/{asked.json()['id']}/approve",
                              json={"note": "ok"}, headers=h)  # fmt: skip
    assert approved.status_code == 200 and approved.json()["status"] == "approved"
    grants = (await api.get(f"/v1/mcp/servers/{server['id']}/grants", headers=h)).json()
    user_grant = [g for g in grants if g["kind"] == "user"]
    assert [(g["id"], g["subject_id"], g["tool_allow"]) for g in user_grant] == [
        (approved.json()["grant_id"], alice, ["list_notes"])]  # fmt: skip
    assert await _mcp_tools(api, as_alice, agent) == ["mcp_notes_list_notes"]
    ran = await _invoke(api, as_alice, agent, "mcp_notes_list_notes", {})
    assert ran.json()["result"]["for_llm"] == "(no notes)"
    twice = await api.post(f"/v1/mcp/access-requests/{asked.json()['id']}/reject", json={},
                           headers=h)  # fmt: skip
    assert twice.status_code == 409 and twice.json()["code"] == "access_request_decided"


async def test_bad_input_gets_a_clear_error_and_loses_nothing(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    h = acme.admin
    ghost = await api.post("/v1/mcp/servers", json={"name": "ghost", "command": "/nonexistent/srv"},
                           headers=h)  # fmt: skip
    assert ghost.status_code == 201  # stored: the command may appear later
    assert not ghost.json()["test"]["ok"]
    assert "'ghost' cannot be reached" in ghost.json()["test"]["error"]
    port = free_port()
    down = {"name": "down", "transport": "streamable-http", "url": f"http://127.0.0.1:{port}/mcp",
            "timeout_seconds": 5}  # fmt: skip
    refused = await api.post("/v1/mcp/servers", json=down, headers=h)
    tested = await api.post(f"/v1/mcp/servers/{refused.json()['id']}/test", headers=h)
    assert tested.status_code == 200 and not tested.json()["ok"]
    assert "'down' cannot be reached" in tested.json()["error"]
    no_command = await api.post("/v1/mcp/servers", json={"name": "x"}, headers=h)
    assert no_command.status_code == 422 and "needs a command" in no_command.text

    odd = await api.post("/v1/mcp/servers", json={"name": "odd", "command": sys.executable,
                         "args": [str(ODD)]}, headers=h)  # fmt: skip
    assert odd.json()["test"]["tools"] == ["mcp_odd_echo"]
    assert (
        len(odd.json()["tool_warnings"]) == 2
        and "'broken' skipped" in odd.json()["tool_warnings"][0]
    )
    clash = await api.post("/v1/mcp/servers", json=_notes("notes2", tool_prefix="odd"), headers=h)
    assert clash.status_code == 409 and clash.json()["code"] == "mcp_prefix_taken"
    same = await api.post("/v1/mcp/servers", json=_notes("odd", tool_prefix="other"), headers=h)
    assert same.status_code == 409 and same.json()["code"] == "mcp_server_exists"

    agent = await _agent(api, h)
    typo = await api.put(f"/v1/mcp/servers/{odd.json()['id']}/grants/agents/{agent}",
                         json={"tool_allow": ["ecko"]}, headers=h)  # fmt: skip
    assert typo.status_code == 422 and typo.json()["code"] == "unknown_mcp_tool"
    assert "its tools: echo" in typo.json()["message"]
    unknown = await api.put(f"/v1/mcp/servers/{ghost.json()['id']}/grants/agents/{agent}",
                            json={"tool_allow": ["anything"]}, headers=h)  # fmt: skip
    assert unknown.status_code == 422 and unknown.json()["code"] == "mcp_tools_unknown"
    grants = (await api.get(f"/v1/mcp/servers/{odd.json()['id']}/grants", headers=h)).json()
    assert grants == []  # nothing half-written
    listed = sorted(s["name"] for s in (await api.get("/v1/mcp/servers", headers=h)).json())
    assert listed == ["down", "ghost", "odd"]


async def test_grants_and_requests_name_what_was_not_found(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    h = acme.admin
    server = (await api.post("/v1/mcp/servers", json=_notes(), headers=h)).json()["id"]
    agent = await _agent(api, h)
    nobody = "00000000-0000-0000-0000-000000000000"
    no_agent = await api.put(f"/v1/mcp/servers/{server}/grants/agents/{nobody}", json={}, headers=h)
    assert no_agent.status_code == 404 and no_agent.json()["code"] == "agent_not_found"
    no_server = await api.put(f"/v1/mcp/servers/{nobody}/grants/agents/{agent}", json={}, headers=h)
    assert no_server.status_code == 404 and no_server.json()["code"] == "mcp_server_not_found"
    no_user = await api.post(f"/v1/mcp/servers/{server}/access-requests",
                             json={"user_id": nobody}, headers=h)  # fmt: skip
    assert no_user.status_code == 404 and no_user.json()["code"] == "user_not_found"
    keyless = await api.post(f"/v1/mcp/servers/{server}/access-requests", json={}, headers=h)
    assert keyless.status_code == 422 and keyless.json()["code"] == "user_required"
    revoked = await api.delete(f"/v1/mcp/servers/{server}/grants/users/{nobody}", headers=h)
    assert revoked.status_code == 404 and revoked.json()["code"] == "grant_not_found"
