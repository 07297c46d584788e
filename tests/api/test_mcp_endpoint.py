"""toolgate as an MCP server: an MCP client (the SDK's, over streamable HTTP) with a
toolgate API key sees the agent's tools and gets governed, scrubbed, audited calls."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import httpx2
import pytest
import uvicorn
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import TextContent
from temporalio.client import Client
from temporalio.worker import Worker

from toolgate.api import create_app
from toolgate.devstack import free_port
from toolgate.services import Services

from ..helpers import TenantKeys, eventually

NOTES = Path(__file__).parents[2] / "examples" / "mcp" / "notes_server.py"
TOKEN = "notes-token-0123456789abcdef"


@pytest.fixture
async def served(
    services: Services, temporal_client: Client, tool_worker: Worker
) -> AsyncIterator[str]:
    """The real API on a port (an MCP client needs a URL), a real worker behind it."""
    port = free_port()
    config = uvicorn.Config(create_app(services, temporal_client), host="127.0.0.1", port=port,
                            log_level="warning", lifespan="on")  # fmt: skip
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())

    async def started() -> bool:
        return server.started

    await eventually(started, "the API listens")
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await task


async def _session_call(
    url: str, key: str, tool: str | None = None, args: dict[str, object] | None = None
) -> tuple[list[str], str, bool]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"},
                                  timeout=httpx2.Timeout(60))  # fmt: skip
    async with http, streamable_http_client(url, http_client=http) as streams, ClientSession(
        streams[0], streams[1]
    ) as session:  # fmt: skip
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        if tool is None:
            return names, "", False
        result = await session.call_tool(tool, args or {})
        text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
        return names, text, bool(result.is_error)


async def test_an_mcp_client_gets_the_agents_tools_governed_scrubbed_and_audited(
    served: str, acme: TenantKeys
) -> None:
    async with httpx.AsyncClient(base_url=served, headers=acme.admin, timeout=60) as api:
        agent = (
            await api.post(
                "/v1/agents",
                json={
                    "name": "ide",
                    "tool_policy": {
                        "profile": "coding",
                        "deny": ["exec"],
                        "also_allow": ["group:mcp"],
                    },
                },
            )
        ).json()["id"]
        notes = (await api.post("/v1/mcp/servers", json={"name": "notes",
                 "command": sys.executable, "args": [str(NOTES)],
                 "env": {"NOTES_TOKEN": TOKEN}})).json()  # fmt: skip
        await api.put(f"/v1/mcp/servers/{notes['id']}/grants/agents/{agent}",
                      json={"tool_allow": ["show_config"]})  # fmt: skip
        key = (await api.post("/v1/keys", json={"role": "user"})).json()["key"]
        listed = (await api.get("/v1/tools", params={"agent_id": agent})).json()
        url = f"{served}/mcp/{agent}"

        names, _, _ = await _session_call(url, key)
        assert sorted(names) == sorted(t["name"] for t in listed)
        assert "mcp_notes_show_config" in names and "exec" not in names
        _, wrote, failed = await _session_call(
            url, key, "write_file", {"path": "hello.txt", "content": "hi there"}
        )
        assert not failed, wrote
        _, read, _ = await _session_call(url, key, "read_file", {"path": "hello.txt"})
        assert "hi there" in read
        _, leaked, _ = await _session_call(url, key, "mcp_notes_show_config")
        assert leaked.startswith("db=postgres://notes:") and TOKEN not in leaked
        _, denied, failed = await _session_call(url, key, "exec", {"command": "id"})
        assert failed and denied.startswith("[tool_not_allowed]")
        _, bad, failed = await _session_call(url, key, "read_file", {"path": 7})
        assert failed and bad.startswith("[invalid_arguments]")
        audit = (await api.get("/v1/audit", params={"agent_id": agent})).json()
        assert [e["tool"] for e in audit][:5] == [
            "read_file", "exec", "mcp_notes_show_config", "read_file", "write_file"]  # fmt: skip
        assert TOKEN not in str(audit)


async def test_the_endpoint_needs_a_valid_key_and_an_agent_of_its_tenant(
    served: str, acme: TenantKeys
) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(base_url=served, timeout=30) as http:
        agent = (await http.post("/v1/agents", json={"name": "x"}, headers=acme.admin)).json()["id"]
        none = await http.post(f"/mcp/{agent}", json=init, headers=headers)
        assert none.status_code == 401 and none.json()["code"] == "missing_api_key"
        wrong = await http.post(
            f"/mcp/{agent}", json=init, headers={**headers, "Authorization": "Bearer tgk_nope"}
        )
        assert wrong.status_code == 401 and wrong.json()["code"] == "invalid_api_key"
        other = await http.post("/mcp/00000000-0000-0000-0000-000000000000", json=init,
                                headers={**headers, **acme.admin})  # fmt: skip
        assert other.status_code == 404 and other.json()["code"] == "agent_not_found"
