"""The OpenAPI document: every route is there, secured, and the writes have examples."""

from __future__ import annotations

import httpx

PUBLIC = {("get", "/healthz")}


async def test_openapi_documents_auth_and_examples(api: httpx.AsyncClient) -> None:
    doc = (await api.get("/openapi.json")).json()
    schemes = doc["components"]["securitySchemes"]
    assert {s["type"] for s in schemes.values()} == {"http", "apiKey"}
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            if (method, path) in PUBLIC:
                assert "security" not in op
            else:
                assert op.get("security"), f"{method} {path} is not marked as needing a key"
    schemas = doc["components"]["schemas"]
    for name in ("AgentCreate", "AgentUpdate", "ToolPolicyModel", "TenantCreate", "KeyCreate",
                 "UserCreate", "SecretPut"):  # fmt: skip
        assert schemas[name].get("examples"), name
    assert "/v1/codec/ui/{token}/decode" not in doc["paths"]
