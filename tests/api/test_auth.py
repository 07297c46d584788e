"""API keys: missing, malformed, revoked, wrong role; shown once, stored hashed."""

from __future__ import annotations

import hashlib

import httpx
from sqlalchemy import select

from toolgate.services import Services
from toolgate.store.models import ApiKeyRow

from ..helpers import TenantKeys, bearer


async def test_a_route_without_a_key_is_401(api: httpx.AsyncClient) -> None:
    response = await api.get("/v1/agents")
    assert response.status_code == 401
    assert response.json()["code"] == "missing_api_key"
    assert "Authorization: Bearer" in response.json()["message"]


async def test_invalid_keys_are_401(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    good = acme.admin["Authorization"].removeprefix("Bearer ")
    for bad in ("nope", "tgk_", good[:-1] + ("A" if good[-1] != "A" else "B"),
                "tgk_000000000000_" + "x" * 43, good + "x"):  # fmt: skip
        response = await api.get("/v1/agents", headers=bearer(bad))
        assert response.status_code == 401, bad
        assert response.json()["code"] == "invalid_api_key"


async def test_x_api_key_header_works_too(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    key = acme.user["Authorization"].removeprefix("Bearer ")
    assert (await api.get("/v1/agents", headers={"X-API-Key": key})).status_code == 200


async def test_a_revoked_key_stops_working_on_the_next_request(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    created = (await api.post("/v1/keys", json={"label": "temp"}, headers=acme.admin)).json()
    temp = bearer(created["key"])
    assert (await api.get("/v1/agents", headers=temp)).status_code == 200
    assert (await api.delete(f"/v1/keys/{created['id']}", headers=acme.admin)).status_code == 204
    response = await api.get("/v1/agents", headers=temp)
    assert response.status_code == 401 and response.json()["code"] == "invalid_api_key"
    again = await api.delete(f"/v1/keys/{created['id']}", headers=acme.admin)
    assert again.status_code == 404 and again.json()["code"] == "key_not_found"


async def test_the_key_is_shown_once_and_only_its_hash_is_stored(
    api: httpx.AsyncClient, acme: TenantKeys, services: Services
) -> None:
    created = (await api.post("/v1/keys", json={"role": "admin"}, headers=acme.admin)).json()
    assert created["key"].startswith(f"tgk_{created['id']}_")
    listed = (await api.get("/v1/keys", headers=acme.admin)).json()
    assert all("key" not in k for k in listed)
    async with services.sessions() as session:
        row = await session.scalar(select(ApiKeyRow).where(ApiKeyRow.id == created["id"]))
    assert row is not None
    secret = created["key"].split("_", 2)[2]
    assert row.secret_hash == hashlib.sha256(secret.encode()).digest()
    assert secret.encode() not in row.secret_hash


async def test_a_user_key_reads_but_cannot_write(api: httpx.AsyncClient, acme: TenantKeys) -> None:
    assert (await api.get("/v1/agents", headers=acme.user)).status_code == 200
    for method, path, body in [
        ("POST", "/v1/agents", {"name": "x"}),
        ("POST", "/v1/keys", {"role": "admin"}),
        ("PUT", "/v1/policy", {"profile": "full"}),
        ("PUT", "/v1/tool-settings/exec", {"timeout_seconds": 5}),
        ("PUT", "/v1/secrets/x", {"value": "y"}),
        ("GET", "/v1/secrets", None),
    ]:
        response = await api.request(method, path, json=body, headers=acme.user)
        assert response.status_code == 403, (method, path)
        assert "admin role" in response.json()["message"]


async def test_only_master_makes_master_keys(
    api: httpx.AsyncClient, acme: TenantKeys, master: dict[str, str]
) -> None:
    refused = await api.post("/v1/keys", json={"role": "master"}, headers=acme.admin)
    assert refused.status_code == 403
    misplaced = await api.post(
        f"/v1/tenants/{acme.tenant_id}/keys", json={"role": "master"}, headers=master
    )
    assert misplaced.status_code == 422 and misplaced.json()["code"] == "invalid_role"
    made = await api.post("/v1/keys", json={"role": "master"}, headers=master)
    assert made.status_code == 201 and made.json()["tenant_id"] == "master"


async def test_master_manages_tenants(api: httpx.AsyncClient, master: dict[str, str]) -> None:
    import uuid

    tenant = f"t-{uuid.uuid4().hex[:10]}"
    created = await api.post("/v1/tenants", json={"id": tenant, "name": "New"}, headers=master)
    assert created.status_code == 201
    dup = await api.post("/v1/tenants", json={"id": tenant}, headers=master)
    assert dup.status_code == 409 and dup.json()["code"] == "tenant_exists"
    bad = await api.post("/v1/tenants", json={"id": "Not A Slug"}, headers=master)
    assert bad.status_code == 422
    key = (await api.post(f"/v1/tenants/{tenant}/keys", json={"role": "admin"},
                          headers=master)).json()["key"]  # fmt: skip
    agent = await api.post("/v1/agents", json={"name": "first"}, headers=bearer(key))
    assert agent.status_code == 201 and agent.json()["tenant_id"] == tenant
    assert (await api.get(f"/v1/tenants/{tenant}", headers=bearer(key))).status_code == 200
    protected = await api.delete("/v1/tenants/master", headers=master)
    assert protected.status_code == 409
    assert (await api.delete(f"/v1/tenants/{tenant}", headers=master)).status_code == 204
    gone = await api.get("/v1/agents", headers=bearer(key))
    assert gone.status_code == 401  # the tenant's keys went with it
    missing = await api.post("/v1/tenants/nope-nope/keys", json={}, headers=master)
    assert missing.status_code == 404


async def test_users_crud_and_keys_bound_to_a_user(
    api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    user = (await api.post("/v1/users", json={"name": "bob"}, headers=acme.admin)).json()
    dup = await api.post("/v1/users", json={"name": "bob"}, headers=acme.admin)
    assert dup.status_code == 409 and dup.json()["code"] == "user_exists"
    key = await api.post("/v1/keys", json={"user_id": user["id"]}, headers=acme.admin)
    assert key.status_code == 201 and key.json()["user_id"] == user["id"]
    stranger = await api.post(
        "/v1/keys", json={"user_id": "00000000-0000-0000-0000-000000000000"}, headers=acme.admin
    )
    assert stranger.status_code == 404 and stranger.json()["code"] == "user_not_found"
    assert (await api.delete(f"/v1/users/{user['id']}", headers=acme.admin)).status_code == 204
    assert (await api.get(f"/v1/users/{user['id']}", headers=acme.admin)).status_code == 404
