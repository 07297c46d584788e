"""A key never reads or changes another tenant's rows: every route, tried.

Tenant A owns an agent, a user, a key, a secret, settings and a policy. Tenant B's
admin key then calls every route of the API with A's ids. Routes that name a row of
A must answer 404 (not 403: ids must not leak); routes that act on "your tenant"
must show and change only B's rows. At the end A's rows are checked unchanged.
A last test makes sure no route escapes this table.
"""

from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from toolgate.api.app import ROUTERS
from toolgate.services import Services
from toolgate.store import ChildRun
from toolgate.tools import ToolContext

from ..helpers import TenantKeys, tenant_with_keys

NOTES = Path(__file__).parents[2] / "examples" / "mcp" / "notes_server.py"


@dataclass
class World:
    a: TenantKeys
    b: TenantKeys
    agent: str
    user: str
    key: str
    secret_value: str
    approval: str
    custom_tool: str
    binary: str
    session: str
    child: str
    link: str
    team: str
    task: str
    mcp_server: str
    access_request: str


@pytest.fixture
async def world(api: httpx.AsyncClient, services: Services) -> World:
    a, b = await tenant_with_keys(services), await tenant_with_keys(services)
    h = a.admin
    agent = (await api.post("/v1/agents", json={"name": "a-agent",
             "tool_policy": {"profile": "coding"}}, headers=h)).json()["id"]  # fmt: skip
    user = (await api.post("/v1/users", json={"name": "alice"}, headers=h)).json()["id"]
    key = (await api.post("/v1/keys", json={"role": "user"}, headers=h)).json()["id"]
    secret_value = "a-tenant-secret-value-0123456789"
    assert (
        await api.put("/v1/secrets/brave_key", json={"value": secret_value}, headers=h)
    ).status_code == 200
    await api.put("/v1/tool-settings/exec", json={"timeout_seconds": 77}, headers=h)
    await api.put(f"/v1/agents/{agent}/tool-settings/exec", json={"timeout_seconds": 7}, headers=h)
    await api.put("/v1/policy", json={"deny": ["exec"]}, headers=h)
    await api.put("/v1/shell-deny-groups", json={"network_recon": False}, headers=h)
    await api.put(f"/v1/agents/{agent}/shell-deny-groups", json={"env_dump": False}, headers=h)
    ctx = ToolContext(tenant_id=a.tenant_id, agent_id=agent, workspace=Path("/nonexistent"),
                      tool_call_id=f"run-{uuid.uuid4().hex}:call", workflow_id="wf-a")  # fmt: skip
    approval = await services.approvals.request(ctx, "pip install a-pkg", "exec", "installs")
    tool = {"name": "a_lookup", "description": "d", "command": "echo {{.q}}",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            "env": {"A_TOKEN": "a-env-secret-0123456789"}}  # fmt: skip
    created = await api.post("/v1/custom-tools", json=tool, headers=h)
    assert created.status_code == 201, created.text
    gh_body = {"binary_name": "gh", "preset": "gh", "env": {"GH_TOKEN": "a-gh-tok-99"}}
    gh = await api.post("/v1/cli-binaries", headers=h, json=gh_body)
    assert gh.status_code == 201, gh.text
    await api.put(f"/v1/cli-binaries/{gh.json()['id']}/grants/{agent}", headers=h)
    session = await api.post("/v1/sessions", json={"agent_id": agent}, headers=h)
    assert session.status_code == 201, session.text
    run = f"agentrun-{session.json()['id']}-1"
    child = ChildRun(
        id=f"{run}-sub-1",
        tenant_id=a.tenant_id,
        kind="spawn",
        mode="async",
        parent_id=run,
        parent_session_id=session.json()["id"],
        agent_id=agent,
        target_agent_id=agent,
        label="",
        task="t",
        state="running",
        result="",
    )
    assert (await services.child_runs.admit(child, 8)).admitted
    other = (await api.post("/v1/agents", json={"name": "a-other"}, headers=h)).json()["id"]
    link = await api.post("/v1/agent-links", json={"source_agent_id": agent,
                          "target_agent_id": other}, headers=h)  # fmt: skip
    assert link.status_code == 201, link.text
    helper = [{"agent_id": other, "role": "helper"}]
    team = await api.post("/v1/teams", json={"name": "a-team", "lead_agent_id": agent,
                          "members": helper}, headers=h)  # fmt: skip
    assert team.status_code == 201, team.text
    posted = await api.post(f"/v1/teams/{team.json()['id']}/actions",
                            json={"action": "create", "title": "a task"}, headers=h)  # fmt: skip
    assert posted.status_code == 200, posted.text
    notes = {"name": "a_notes", "command": sys.executable, "args": [str(NOTES)],
             "env": {"NOTES_TOKEN": "a-notes-token-0123456789"}}  # fmt: skip
    server = await api.post("/v1/mcp/servers", json=notes, headers=h)
    assert server.status_code == 201 and server.json()["test"]["ok"], server.text
    mcp = server.json()["id"]
    grant = await api.put(f"/v1/mcp/servers/{mcp}/grants/agents/{agent}",
                          json={"tool_allow": ["list_notes"]}, headers=h)  # fmt: skip
    assert grant.status_code == 200, grant.text
    asked = await api.post(f"/v1/mcp/servers/{mcp}/access-requests", json={"user_id": user},
                           headers=h)  # fmt: skip
    assert asked.status_code == 201, asked.text
    return World(a, b, agent, user, key, secret_value, approval, created.json()["id"],
                 gh.json()["id"], session.json()["id"], child.id, link.json()["id"],
                 team.json()["id"], "T1", mcp, asked.json()["id"])  # fmt: skip


def _routes(w: World) -> list[tuple[str, str, object, set[int]]]:
    """(method, path, body, statuses B may get). Every route but public and master ones."""
    not_found = {404}
    own = {200, 201, 204}
    invoke = {"agent_id": w.agent, "arguments": {"path": "x"}}
    return [
        ("GET", f"/v1/tenants/{w.a.tenant_id}", None, not_found),
        ("POST", "/v1/keys", {"role": "user"}, own),
        ("GET", "/v1/keys", None, own),
        ("DELETE", f"/v1/keys/{w.key}", None, not_found),
        ("POST", "/v1/users", {"name": "alice"}, own),
        ("GET", "/v1/users", None, own),
        ("GET", f"/v1/users/{w.user}", None, not_found),
        ("DELETE", f"/v1/users/{w.user}", None, not_found),
        ("POST", "/v1/agents", {"name": "a-agent"}, own),
        ("GET", "/v1/agents", None, own),
        ("GET", f"/v1/agents/{w.agent}", None, not_found),
        ("PUT", f"/v1/agents/{w.agent}/tool-policy", {"tool_policy": {}}, not_found),
        ("GET", f"/v1/agents/{w.agent}/tools?explain=true", None, not_found),
        ("GET", f"/v1/agents/{w.agent}/tool-settings/exec", None, not_found),
        ("PUT", f"/v1/agents/{w.agent}/tool-settings/exec", {"timeout_seconds": 1}, not_found),
        ("DELETE", f"/v1/agents/{w.agent}/tool-settings/exec", None, not_found),
        ("GET", "/v1/policy", None, own),
        ("PUT", "/v1/policy", {"profile": "minimal"}, own),
        ("GET", "/v1/global/policy", None, own),
        ("GET", "/v1/tool-settings", None, own),
        ("PUT", "/v1/tool-settings/exec", {"timeout_seconds": 5}, own),
        ("DELETE", "/v1/tool-settings/exec", None, own),
        ("GET", "/v1/global/tool-settings", None, own),
        ("PUT", "/v1/secrets/brave_key", {"value": "b-own-value-xxxxxxxxxxxxx"}, own),
        ("GET", "/v1/secrets", None, own),
        ("DELETE", "/v1/secrets/brave_key", None, own),
        ("GET", "/v1/shell-deny-groups", None, own),
        ("PUT", "/v1/shell-deny-groups", {"env_dump": False}, own),
        ("GET", "/v1/global/shell-deny-groups", None, own),
        ("GET", f"/v1/agents/{w.agent}/shell-deny-groups", None, not_found),
        ("PUT", f"/v1/agents/{w.agent}/shell-deny-groups", {"env_dump": True}, not_found),
        ("GET", "/v1/approvals?status=all", None, own),
        ("GET", f"/v1/approvals/{w.approval}", None, not_found),
        ("POST", f"/v1/approvals/{w.approval}", {"decision": "approve"}, not_found),
        (
            "POST",
            "/v1/custom-tools",
            {
                "name": "a_lookup",
                "description": "b's",
                "command": "echo hi",
                "parameters": {"type": "object"},
            },
            own,
        ),
        ("GET", "/v1/custom-tools", None, own),
        ("GET", f"/v1/custom-tools/{w.custom_tool}", None, not_found),
        ("PATCH", f"/v1/custom-tools/{w.custom_tool}", {"command": "id"}, not_found),
        ("DELETE", f"/v1/custom-tools/{w.custom_tool}", None, not_found),
        ("GET", "/v1/cli-presets", None, own),
        ("POST", "/v1/cli-binaries", {"binary_name": "gh", "preset": "gh"}, own),
        ("GET", "/v1/cli-binaries", None, own),
        ("GET", f"/v1/cli-binaries/{w.binary}", None, not_found),
        ("PATCH", f"/v1/cli-binaries/{w.binary}", {"enabled": False}, not_found),
        ("PUT", f"/v1/cli-binaries/{w.binary}/grants/{w.agent}", None, not_found),
        ("DELETE", f"/v1/cli-binaries/{w.binary}/grants/{w.agent}", None, not_found),
        ("DELETE", f"/v1/cli-binaries/{w.binary}", None, not_found),
        ("GET", "/v1/global/command-keyword-allowlist", None, own),
        ("PUT", f"/v1/agents/{w.agent}/llm", {"provider": "scripted"}, not_found),
        ("GET", f"/v1/agents/{w.agent}/llm", None, not_found),
        ("PUT", f"/v1/agents/{w.agent}/hooks", {"hooks": []}, not_found),
        ("GET", f"/v1/agents/{w.agent}/hooks", None, not_found),
        ("POST", "/v1/sessions", {"agent_id": w.agent}, not_found),
        ("GET", "/v1/sessions", None, own),
        ("GET", f"/v1/sessions/{w.session}", None, not_found),
        ("GET", f"/v1/sessions/{w.session}/messages", None, not_found),
        ("POST", f"/v1/sessions/{w.session}/messages", {"text": "hi"}, not_found),
        ("GET", f"/v1/runs/agentrun-{w.session}-1", None, not_found),
        ("GET", f"/v1/runs/agentrun-{w.session}-1/history", None, not_found),
        ("GET", f"/v1/runs/agentrun-{w.session}-1/events", None, not_found),
        ("POST", f"/v1/runs/agentrun-{w.session}-1/messages", {"text": "x"}, not_found),
        ("POST", f"/v1/runs/agentrun-{w.session}-1/cancel", None, not_found),
        ("GET", f"/v1/runs/agentrun-{w.session}-1/subagents", None, not_found),
        ("GET", f"/v1/subagents/{w.child}", None, not_found),
        ("POST", f"/v1/subagents/{w.child}/cancel", None, not_found),
        ("POST", f"/v1/subagents/{w.child}/steer", {"task": "x"}, not_found),
        ("GET", f"/v1/delegations?agent_id={w.agent}", None, own),
        (
            "POST",
            "/v1/agent-links",
            {"source_agent_id": w.agent, "target_agent_id": w.agent},
            not_found,
        ),
        ("GET", "/v1/agent-links", None, own),
        ("DELETE", f"/v1/agent-links/{w.link}", None, not_found),
        ("POST", "/v1/teams", {"name": "t", "lead_agent_id": w.agent}, not_found),
        ("GET", "/v1/teams", None, own),
        ("GET", f"/v1/teams/{w.team}", None, not_found),
        ("GET", f"/v1/teams/{w.team}/tasks", None, not_found),
        ("GET", f"/v1/teams/{w.team}/tasks/{w.task}", None, not_found),
        ("GET", f"/v1/teams/{w.team}/tasks/{w.task}/history", None, not_found),
        ("GET", f"/v1/teams/{w.team}/questions", None, not_found),
        ("POST", f"/v1/teams/{w.team}/actions", {"action": "cancel", "task_id": w.task}, not_found),
        ("GET", f"/v1/teams/{w.team}/events?follow=false", None, not_found),
        ("DELETE", f"/v1/teams/{w.team}", None, not_found),
        ("POST", "/v1/mcp/servers", {"name": "b_srv", "command": "/nonexistent/srv"}, own),
        ("GET", "/v1/mcp/servers", None, own),
        ("GET", f"/v1/mcp/servers/{w.mcp_server}", None, not_found),
        ("PUT", f"/v1/mcp/servers/{w.mcp_server}", {"name": "x", "command": "y"}, not_found),
        ("POST", f"/v1/mcp/servers/{w.mcp_server}/test", None, not_found),
        ("GET", f"/v1/mcp/servers/{w.mcp_server}/grants", None, not_found),
        ("PUT", f"/v1/mcp/servers/{w.mcp_server}/grants/agents/{w.agent}", {}, not_found),
        ("DELETE", f"/v1/mcp/servers/{w.mcp_server}/grants/agents/{w.agent}", None, not_found),
        ("POST", f"/v1/mcp/servers/{w.mcp_server}/access-requests", {"user_id": w.user}, not_found),
        ("GET", "/v1/mcp/access-requests", None, own),
        ("GET", f"/v1/mcp/access-requests/{w.access_request}", None, not_found),
        ("POST", f"/v1/mcp/access-requests/{w.access_request}/approve", {}, not_found),
        ("POST", f"/v1/mcp/access-requests/{w.access_request}/reject", {}, not_found),
        ("DELETE", f"/v1/mcp/servers/{w.mcp_server}", None, not_found),
        ("GET", f"/v1/tools?agent_id={w.agent}", None, not_found),
        ("POST", "/v1/tools/read_file/invoke", invoke, not_found),
        ("GET", f"/v1/audit?agent_id={w.agent}", None, not_found),
        ("DELETE", f"/v1/agents/{w.agent}", None, not_found),
    ]


PUBLIC = {("GET", "/healthz"), ("POST", "/v1/codec/ui/{token}/decode"),
          ("POST", "/v1/codec/ui/{token}/encode")}  # fmt: skip
MASTER_ONLY = {
    ("POST", "/v1/tenants"), ("GET", "/v1/tenants"), ("DELETE", "/v1/tenants/{tenant_id}"),
    ("POST", "/v1/tenants/{tenant_id}/keys"), ("PUT", "/v1/global/policy"),
    ("PUT", "/v1/global/tool-settings/{tool}"), ("DELETE", "/v1/global/tool-settings/{tool}"),
    ("PUT", "/v1/global/shell-deny-groups"), ("PUT", "/v1/global/command-keyword-allowlist"),
    ("POST", "/v1/codec/decode"), ("POST", "/v1/codec/encode"),
}  # fmt: skip


async def test_another_tenants_key_sees_and_changes_nothing(
    api: httpx.AsyncClient, world: World
) -> None:
    for method, path, body, allowed in _routes(world):
        response = await api.request(method, path, json=body, headers=world.b.admin)
        assert response.status_code in allowed, (method, path, response.text)
        text = response.text
        mine = (world.agent, world.user, world.key, world.secret_value, world.a.tenant_id,
                world.approval, world.custom_tool, "a-env-secret-0123456789", world.binary,
                "a-gh-tok-99", world.session, world.child, world.link, world.team)  # fmt: skip
        for own_id in mine:
            assert own_id not in text or response.status_code == 404, (method, path, text)
    await _a_is_unchanged(api, world)


async def test_master_only_routes_refuse_a_tenant_admin(
    api: httpx.AsyncClient, world: World
) -> None:
    calls = [
        ("POST", "/v1/tenants", {"id": "sneaky"}),
        ("GET", "/v1/tenants", None),
        ("DELETE", f"/v1/tenants/{world.a.tenant_id}", None),
        ("POST", f"/v1/tenants/{world.a.tenant_id}/keys", {"role": "admin"}),
        ("PUT", "/v1/global/policy", {"deny": ["read_file"]}),
        ("PUT", "/v1/global/tool-settings/exec", {"timeout_seconds": 1}),
        ("DELETE", "/v1/global/tool-settings/exec", None),
        ("PUT", "/v1/global/shell-deny-groups", {"env_dump": False}),
        ("PUT", "/v1/global/command-keyword-allowlist", {"rules": []}),
        ("POST", "/v1/codec/decode", {"payloads": []}),
        ("POST", "/v1/codec/encode", {"payloads": []}),
    ]
    assert {(m, p.replace(world.a.tenant_id, "{tenant_id}").replace("/exec", "/{tool}"))
            for m, p, _ in calls} == MASTER_ONLY  # fmt: skip
    for method, path, body in calls:
        response = await api.request(method, path, json=body, headers=world.b.admin)
        assert response.status_code == 403, (method, path, response.text)
        assert response.json()["code"] == "forbidden"
        assert "master role" in response.json()["message"]
    await _a_is_unchanged(api, world)


def test_every_route_is_covered_by_these_tests() -> None:
    fake = World(*(None,) * 2, "A", "U", "K", "S", "P", "C", "B", "Q", "H", "L", "M", "Z", "V",  # type: ignore[arg-type]
                 "R")  # fmt: skip
    fake.a = fake.b = TenantKeys("T", {}, {})
    covered = {
        (m, p.split("?")[0].replace("/A", "/{agent_id}").replace("/U", "/{user_id}")
         .replace("/K", "/{key_id}").replace("/T", "/{tenant_id}")
         .replace("/read_file/", "/{name}/").replace("/brave_key", "/{name}")
         .replace("/P", "/{approval_id}").replace("/C", "/{tool_id}")
         .replace("/B", "/{binary_id}").replace("/agentrun-Q-1", "/{run_id}")
         .replace("/Q", "/{session_id}").replace("/H", "/{child_id}")
         .replace("/L", "/{link_id}").replace("/M", "/{team_id}").replace("/Z", "/{task_id}")
         .replace("/V", "/{server_id}").replace("/R", "/{request_id}")
         .replace("/agents/{agent_id}", "/{kind}/{subject_id}", p.startswith("/v1/mcp/") or 0))
        for m, p, _, _ in _routes(fake)
    }  # fmt: skip
    covered = {(m, p.replace("/exec", "/{tool}")) for m, p in covered}
    routes = {(m, r.path) for module in ROUTERS for r in module.router.routes for m in r.methods}
    assert routes - covered - PUBLIC - MASTER_ONLY == set()


async def _a_is_unchanged(api: httpx.AsyncClient, w: World) -> None:
    h = w.a.admin
    agent = (await api.get(f"/v1/agents/{w.agent}", headers=h)).json()
    assert agent["tool_policy"] == {"profile": "coding"}
    assert agent["tool_settings"] == {"exec": {"timeout_seconds": 7}}
    assert (await api.get(f"/v1/users/{w.user}", headers=h)).status_code == 200
    keys = {k["id"]: k for k in (await api.get("/v1/keys", headers=h)).json()}
    assert keys[w.key]["revoked_at"] is None
    secrets = (await api.get("/v1/secrets", headers=h)).json()
    assert [s["name"] for s in secrets] == ["brave_key"]
    child = (await api.get(f"/v1/subagents/{w.child}", headers=h)).json()
    assert child["state"] == "running"
    links = (await api.get("/v1/agent-links", headers=h)).json()
    assert [link["id"] for link in links] == [w.link]
    tasks = (await api.get(f"/v1/teams/{w.team}/tasks", headers=h)).json()
    assert [(t["id"], t["status"]) for t in tasks] == [("T1", "pending")]
    server = (await api.get(f"/v1/mcp/servers/{w.mcp_server}", headers=h)).json()
    assert (server["name"], server["env"]) == ("a_notes", {"NOTES_TOKEN": "****"})
    grants = (await api.get(f"/v1/mcp/servers/{w.mcp_server}/grants", headers=h)).json()
    assert [(g["subject_id"], g["tool_allow"]) for g in grants] == [(w.agent, ["list_notes"])]
    asked = (await api.get(f"/v1/mcp/access-requests/{w.access_request}", headers=h)).json()
    assert asked["status"] == "pending"
    assert secrets[0]["masked"] == "****" + w.secret_value[-4:]
    settings = {s["tool"]: s for s in (await api.get("/v1/tool-settings", headers=h)).json()}
    assert settings["exec"] == {"tool": "exec", "settings": {"timeout_seconds": 77},
                                "source": "tenant"}  # fmt: skip
    assert (await api.get("/v1/policy", headers=h)).json()["tool_policy"] == {"deny": ["exec"]}
    toggles = await api.get(f"/v1/agents/{w.agent}/shell-deny-groups", headers=h)
    assert toggles.json()["shell_deny_groups"] == {"env_dump": False}
    assert toggles.json()["effective"]["network_recon"] is False  # the tenant's, untouched
    approval = (await api.get(f"/v1/approvals/{w.approval}", headers=h)).json()
    assert approval["status"] == "pending" and approval["decided_by"] is None
    tool = (await api.get(f"/v1/custom-tools/{w.custom_tool}", headers=h)).json()
    assert tool["command"] == "echo {{.q}}" and tool["description"] == "d"
    assert tool["env"] == {"A_TOKEN": {"kind": "sensitive", "value": "****"}}
    session = (await api.get(f"/v1/sessions/{w.session}", headers=h)).json()
    assert session["agent_id"] == w.agent and session["current_run"] is None
    binary = (await api.get(f"/v1/cli-binaries/{w.binary}", headers=h)).json()
    assert binary["enabled"] is True and binary["granted_agents"] == [w.agent]
    assert json.dumps(agent)  # A still reads its own agent with its own key
