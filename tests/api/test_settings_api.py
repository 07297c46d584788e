"""Tool settings over REST: tiers, validation naming the field, the master guard."""

from __future__ import annotations

import httpx
import pytest

from ..helpers import TenantKeys


async def _settings(api: httpx.AsyncClient, keys: TenantKeys) -> dict[str, dict]:
    return {s["tool"]: s for s in (await api.get("/v1/tool-settings", headers=keys.user)).json()}


async def test_tiers_agent_over_tenant_over_global_over_default(
    api: httpx.AsyncClient, acme: TenantKeys, master: dict[str, str]
) -> None:
    h = acme.admin
    agent = (await api.post("/v1/agents", json={"name": "s"}, headers=h)).json()["id"]
    path = f"/v1/agents/{agent}/tool-settings/web_fetch"
    assert (await api.get(path, headers=acme.user)).json()["source"] == "default"
    glob = {"policy": "allowlist", "allowed_domains": ["example.com"]}
    assert (await api.put("/v1/global/tool-settings/web_fetch", json=glob,
                          headers=master)).status_code == 200  # fmt: skip
    try:
        assert (await api.get(path, headers=acme.user)).json() == {
            "tool": "web_fetch", "settings": glob, "source": "global"}  # fmt: skip
        tenant = {"blocked_domains": ["bad.example"]}
        await api.put("/v1/tool-settings/web_fetch", json=tenant, headers=h)
        # Wholesale: the tenant entry replaces the global one, policy is not merged in.
        assert (await api.get(path, headers=acme.user)).json()["settings"] == tenant
        assert (await _settings(api, acme))["web_fetch"]["source"] == "tenant"
        own = {"policy": "allow_all"}
        await api.put(path, json=own, headers=h)
        assert (await api.get(path, headers=acme.user)).json() == {
            "tool": "web_fetch", "settings": own, "source": "agent"}  # fmt: skip
        assert (await api.delete(path, headers=h)).status_code == 204
        reset = await api.delete("/v1/tool-settings/web_fetch", headers=h)
        assert reset.json()["source"] == "global"
    finally:
        await api.delete("/v1/global/tool-settings/web_fetch", headers=master)
    assert (await api.get(path, headers=acme.user)).json()["source"] == "default"


@pytest.mark.parametrize("bad", [0, 3601, "abc", None, 2.5])
async def test_exec_timeout_out_of_range_is_422_naming_the_field(
    api: httpx.AsyncClient, acme: TenantKeys, bad: object
) -> None:
    response = await api.put(
        "/v1/tool-settings/exec", json={"timeout_seconds": bad}, headers=acme.admin
    )
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_settings" and body["field"] == "exec.timeout_seconds"
    assert (await _settings(api, acme))["exec"]["source"] == "default"  # nothing stored


async def test_malformed_settings_name_the_field(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    response = await api.put(
        "/v1/tool-settings/web_search",
        json={"brave": {"enabled": "yes please"}},
        headers=acme.admin,
    )
    assert response.status_code == 422
    assert response.json()["field"] == "web_search.brave.enabled"
    not_object = await api.put("/v1/tool-settings/exec", json=[1], headers=acme.admin)
    assert not_object.status_code == 422
    unknown = await api.put("/v1/tool-settings/warp_drive", json={}, headers=acme.admin)
    assert unknown.status_code == 404 and unknown.json()["code"] == "tool_not_found"


async def test_a_credential_in_settings_is_refused_pointing_to_secrets(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    response = await api.put(
        "/v1/tool-settings/web_search",
        json={"provider_order": ["brave"], "brave": {"enabled": True},
              "api_key": "BSAk1234567890abcdef1234567890ab"},
        headers=acme.admin,
    )  # fmt: skip
    assert response.status_code == 422
    assert response.json()["code"] == "secret_in_settings"
    response = await api.put(
        "/v1/tool-settings/read_file",
        json={"note": "token sk-proj-abcdefghijklmnopqrstuvwxyz0123"},
        headers=acme.admin,
    )
    assert response.status_code == 422 and response.json()["code"] == "secret_in_settings"
    assert "/v1/secrets" in response.json()["message"]


async def test_global_defaults_need_master_scope(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    response = await api.put(
        "/v1/global/tool-settings/exec", json={"timeout_seconds": 5}, headers=acme.admin
    )
    assert response.status_code == 403 and response.json()["code"] == "forbidden"
    listed = (await api.get("/v1/global/tool-settings", headers=acme.user)).json()
    assert {s["tool"]: s["source"] for s in listed}["exec"] == "default"


async def test_secrets_are_write_only_masked_and_encrypted_at_rest(
    api: httpx.AsyncClient, acme: TenantKeys, services
) -> None:
    from sqlalchemy import text

    value = "brave-api-key-abcdefghijklmnop"
    put = await api.put("/v1/secrets/brave", json={"value": value}, headers=acme.admin)
    assert put.status_code == 200
    assert put.json()["masked"] == "****mnop" and value not in put.text
    listed = await api.get("/v1/secrets", headers=acme.admin)
    assert [s["name"] for s in listed.json()] == ["brave"] and value not in listed.text
    async with services.sessions() as session:
        raw = (await session.execute(text(
            "SELECT ciphertext FROM config_secrets WHERE tenant_id = :t"),
            {"t": acme.tenant_id})).scalar_one()  # fmt: skip
    assert value.encode() not in raw
    assert await services.secrets.values(acme.tenant_id) == {"brave": value}
    bad_name = await api.put("/v1/secrets/a b", json={"value": "x"}, headers=acme.admin)
    assert bad_name.status_code == 422
    empty = await api.put("/v1/secrets/x", json={"value": ""}, headers=acme.admin)
    assert empty.status_code == 422
    assert (await api.delete("/v1/secrets/brave", headers=acme.admin)).status_code == 204
    gone = await api.delete("/v1/secrets/brave", headers=acme.admin)
    assert gone.status_code == 404 and gone.json()["code"] == "secret_not_found"


async def test_a_tenant_secret_is_scrubbed_from_that_tenants_tool_output(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    value = "internal-db-pass-Zq81"  # no credential shape: only the secrets store knows it
    await api.put("/v1/secrets/db_password", json={"value": value}, headers=acme.admin)
    agent = (await api.post("/v1/agents", json={"name": "leaky"}, headers=acme.admin)).json()["id"]
    body = {"path": "notes.txt", "content": f"the password is {value}\n"}
    await api.post("/v1/tools/write_file/invoke", headers=acme.user,
                   json={"agent_id": agent, "arguments": body})  # fmt: skip
    read = await api.post("/v1/tools/read_file/invoke", headers=acme.user,
                          json={"agent_id": agent, "arguments": {"path": "notes.txt"}})  # fmt: skip
    assert read.json()["result"]["for_llm"] == "the password is [REDACTED]\n"
    audit = await api.get("/v1/audit", params={"agent_id": agent}, headers=acme.user)
    assert value not in audit.text
