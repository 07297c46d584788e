"""Policy through the API: the issue's "done when" walk, explain, bad input."""

from __future__ import annotations

import uuid

import httpx

from ..helpers import TenantKeys, bearer


async def test_new_user_walk_coding_agent_without_exec(
    api: httpx.AsyncClient, master: dict[str, str]
) -> None:
    # A tenant and its admin key, as an operator hands them out.
    tenant = f"acme-{uuid.uuid4().hex[:8]}"
    assert (await api.post("/v1/tenants", json={"id": tenant}, headers=master)).status_code == 201
    key = (await api.post(f"/v1/tenants/{tenant}/keys", json={"role": "admin"},
                          headers=master)).json()["key"]  # fmt: skip
    admin = bearer(key)
    body = {"name": "coder", "tool_policy": {"profile": "coding", "deny": ["exec"]}}
    agent = (await api.post("/v1/agents", headers=admin, json=body)).json()
    assert agent["warnings"] == []

    explained = await api.get(
        f"/v1/agents/{agent['id']}/tools", params={"explain": "true", "tool": "exec"}, headers=admin
    )
    why = explained.json()["explain"][0]
    assert why == {
        "tool": "exec",
        "reaches_llm": False,
        "decided_by": "agent_deny",
        "reason": "removed by agent deny list",
        "trace": ["profile: in agent profile 'coding'", "agent_deny: removed by agent deny list"],
    }  # fmt: skip
    assert "exec" not in explained.json()["tools"] and "read_file" in explained.json()["tools"]

    refused = await api.post(
        "/v1/tools/exec/invoke",
        json={"agent_id": agent["id"], "arguments": {"command": "echo hi"}},
        headers=admin,
    )
    assert refused.status_code == 403 and refused.json()["code"] == "tool_not_allowed"
    allowed = await api.post(
        "/v1/tools/read_file/invoke",
        json={"agent_id": agent["id"], "arguments": {"path": "missing.txt"}},
        headers=admin,
    )
    assert allowed.status_code == 200 and allowed.json()["result"]["error_code"] == "not_found"

    # A second tenant sees none of it.
    other = f"globex-{uuid.uuid4().hex[:8]}"
    await api.post("/v1/tenants", json={"id": other}, headers=master)
    other_key = (await api.post(f"/v1/tenants/{other}/keys", json={"role": "admin"},
                                headers=master)).json()["key"]  # fmt: skip
    theirs = bearer(other_key)
    assert (await api.get("/v1/agents", headers=theirs)).json() == []
    assert (await api.get(f"/v1/agents/{agent['id']}", headers=theirs)).status_code == 404
    peek = await api.get(f"/v1/agents/{agent['id']}/tools?explain=true", headers=theirs)
    assert peek.status_code == 404
    audit = await api.get("/v1/audit", params={"agent_id": agent["id"]}, headers=theirs)
    assert audit.status_code == 404


async def test_explain_every_tool_and_the_request_dimensions(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    body = {"name": "r", "tool_policy": {"allow": ["group:fs"],
            "provider_allow": {"tiny": ["read_file"]}}}  # fmt: skip
    agent = (await api.post("/v1/agents", json=body, headers=acme.admin)).json()["id"]
    listing = await api.get(f"/v1/agents/{agent}/tools?explain=true", headers=acme.user)
    by_tool = {e["tool"]: e for e in listing.json()["explain"]}
    assert by_tool["exec"]["decided_by"] == "agent_allow"
    assert by_tool["write_file"]["reaches_llm"] is True
    tiny = await api.get(f"/v1/agents/{agent}/tools", params={"provider": "tiny"},
                         headers=acme.user)  # fmt: skip
    assert tiny.json()["tools"] == ["read_file"] and tiny.json()["explain"] is None
    narrowed = await api.get(
        f"/v1/agents/{agent}/tools", params={"request_allow": "list_files"}, headers=acme.user
    )
    assert narrowed.json()["tools"] == ["list_files"]
    tools = await api.get("/v1/tools", params={"agent_id": agent, "provider": "tiny"},
                          headers=acme.user)  # fmt: skip
    assert [t["name"] for t in tools.json()] == ["read_file"]


async def test_tenant_policy_applies_to_every_agent_of_the_tenant(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = (await api.post("/v1/agents", json={"name": "t"}, headers=acme.admin)).json()["id"]
    put = await api.put("/v1/policy", json={"deny": ["write_file", "telepathy"]},
                        headers=acme.admin)  # fmt: skip
    assert put.status_code == 200
    assert put.json()["warnings"] == ["tenant.deny: 'telepathy' names no registered tool"]
    refused = await api.post(
        "/v1/tools/write_file/invoke",
        json={"agent_id": agent, "arguments": {"path": "a", "content": "b"}},
        headers=acme.user,
    )
    assert refused.status_code == 403
    why = await api.get(f"/v1/agents/{agent}/tools?tool=write_file", headers=acme.user)
    assert why.json()["explain"][0]["decided_by"] == "tenant_deny"


async def test_agent_policy_update_takes_effect_on_the_next_call(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    agent = (await api.post("/v1/agents", json={"name": "u"}, headers=acme.admin)).json()["id"]
    call = {"agent_id": agent, "arguments": {}}
    assert (await api.post("/v1/tools/list_files/invoke", json=call,
                           headers=acme.user)).status_code == 200  # fmt: skip
    deny = {"tool_policy": {"deny": ["list_files"]}}
    update = await api.put(f"/v1/agents/{agent}/tool-policy", json=deny, headers=acme.admin)
    assert update.status_code == 200
    after = await api.post("/v1/tools/list_files/invoke", json=call, headers=acme.user)
    assert after.status_code == 403


async def test_bad_policies_are_refused_and_nothing_is_stored(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    h = acme.admin
    unknown = await api.post("/v1/agents", json={"name": "p", "tool_policy": {"profile": "god"}},
                             headers=h)  # fmt: skip
    assert unknown.status_code == 422 and unknown.json()["code"] == "unknown_profile"
    assert "full, coding, messaging, minimal" in unknown.json()["message"]
    huge = {"name": "h", "tool_policy": {"allow": [f"t{i}" for i in range(1001)]}}
    too_big = await api.post("/v1/agents", json=huge, headers=h)
    assert too_big.status_code == 422 and "allow" in too_big.json()["message"]
    typo = await api.post("/v1/agents", json={"name": "p", "tool_policy": {"alow": ["x"]}},
                          headers=h)  # fmt: skip
    assert typo.status_code == 422 and "alow" in typo.json()["message"]
    assert (await api.get("/v1/agents", headers=h)).json() == []
    bad_tenant = await api.put("/v1/policy", json={"profile": "everything"}, headers=h)
    assert bad_tenant.status_code == 422
    assert (await api.get("/v1/policy", headers=h)).json()["tool_policy"] == {}
    loop = {"groups": {"a": ["group:b"], "b": ["group:a"]}, "allow": ["group:a"]}
    looped = await api.put("/v1/policy", json=loop, headers=h)
    assert looped.status_code == 200
    assert any("group loop ignored" in w for w in looped.json()["warnings"])


async def test_global_policy_is_master_scope_and_reaches_every_tenant(
    api: httpx.AsyncClient, acme: TenantKeys, master: dict[str, str]
) -> None:
    agent = (await api.post("/v1/agents", json={"name": "g"}, headers=acme.admin)).json()["id"]
    put = await api.put("/v1/global/policy", json={"deny": ["edit"]}, headers=master)
    try:
        assert put.status_code == 200
        why = await api.get(f"/v1/agents/{agent}/tools?tool=edit", headers=acme.user)
        assert why.json()["explain"][0]["decided_by"] == "global_deny"
        read = await api.get("/v1/global/policy", headers=acme.user)
        assert read.json()["tool_policy"] == {"deny": ["edit"]}
    finally:
        await api.put("/v1/global/policy", json={}, headers=master)
