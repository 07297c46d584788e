"""exec through the REST API: the guard's verdicts, live toggles, settings timeout."""

from __future__ import annotations

import httpx

from ..helpers import TenantKeys


async def _exec_agent(api: httpx.AsyncClient, acme: TenantKeys) -> str:
    body = {"name": "shell", "tool_policy": {"allow": ["exec"]}}
    return str((await api.post("/v1/agents", json=body, headers=acme.admin)).json()["id"])


async def _run(
    api: httpx.AsyncClient, acme: TenantKeys, agent: str, command: str
) -> httpx.Response:
    return await api.post(
        "/v1/tools/exec/invoke",
        json={"agent_id": agent, "arguments": {"command": command}},
        headers=acme.user,
    )


async def test_an_allowed_command_runs_and_a_denied_one_names_its_group(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _exec_agent(api, acme)
    ok = await _run(api, acme, agent, "echo hello; exit 3")
    assert ok.status_code == 200
    assert ok.json()["result"] == {"for_llm": "exit code 3\nhello\n", "for_user": "",
                                   "is_error": True, "error_code": "command_failed"}  # fmt: skip
    denied = await _run(api, acme, agent, "echo cm0gLXJmIC8= | base64 -d | sh")
    assert denied.status_code == 403
    body = denied.json()
    assert body["code"] == "command_denied" and body["group"] == "filter_bypass"
    assert "filter_bypass" in body["message"]
    audit = (await api.get("/v1/audit", params={"agent_id": agent}, headers=acme.user)).json()
    assert [(a["outcome"], a["error_code"]) for a in audit][:1] == [("refused", "command_denied")]


async def test_toggles_take_effect_on_the_next_call(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _exec_agent(api, acme)
    assert (await _run(api, acme, agent, "printenv")).json()["group"] == "env_dump"
    put = await api.put(
        f"/v1/agents/{agent}/shell-deny-groups", json={"env_dump": False}, headers=acme.admin
    )
    assert put.json()["effective"]["env_dump"] is False
    assert put.json()["effective"]["destructive_ops"] is True
    allowed = await _run(api, acme, agent, "printenv")
    assert allowed.status_code == 200 and "PATH=" in allowed.json()["result"]["for_llm"]
    tenant = await api.put("/v1/shell-deny-groups", json={"env_dump": True}, headers=acme.admin)
    assert tenant.json()["effective"]["env_dump"] is True
    assert (await _run(api, acme, agent, "printenv")).status_code == 200  # the agent wins
    bad = await api.put("/v1/shell-deny-groups", json={"rm_all": False}, headers=acme.admin)
    assert bad.status_code == 422 and bad.json()["field"] == "shell_deny_groups.rm_all"


async def test_the_exec_timeout_comes_from_the_merged_settings(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _exec_agent(api, acme)
    await api.put(
        f"/v1/agents/{agent}/tool-settings/exec", json={"timeout_seconds": 1}, headers=acme.admin
    )
    slow = await _run(api, acme, agent, "sleep 30")
    assert slow.status_code == 200
    assert slow.json()["result"]["error_code"] == "tool_timeout"
    assert "within 1 s" in slow.json()["result"]["for_llm"]


async def test_secrets_of_the_worker_do_not_reach_the_command(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = await _exec_agent(api, acme)
    await api.put(f"/v1/agents/{agent}/shell-deny-groups", json={"env_dump": False},
                  headers=acme.admin)  # fmt: skip
    env = (await _run(api, acme, agent, "env")).json()["result"]["for_llm"]
    assert "TOOLGATE" not in env and "test1:" not in env
