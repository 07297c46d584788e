"""`toolgate chat` against a real HTTP API with a worker behind it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator

import httpx
import pytest
import uvicorn
from temporalio.client import Client
from temporalio.worker import Worker

from toolgate.api import create_app
from toolgate.devstack import free_port
from toolgate.services import Services

from ..helpers import tenant_with_keys


@pytest.fixture
async def api_url(
    services: Services, temporal_client: Client, tool_worker: Worker
) -> AsyncIterator[str]:
    """The real API on a loopback port (the CLI is a separate process)."""
    port = free_port()
    app = create_app(services, temporal_client)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)  # waiting for the socket, not a timing assertion
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def test_chat_shows_tool_calls_and_the_answer(api_url: str, services: Services) -> None:
    acme = await tenant_with_keys(services)
    async with httpx.AsyncClient(base_url=api_url) as api:
        agent = (await api.post("/v1/agents", json={"name": "cli"}, headers=acme.admin)).json()
        script = {"provider": "scripted", "script": {"turns": [
            {"tool_calls": [{"name": "list_files"}]}, {"text": "All quiet."}]}}  # fmt: skip
        await api.put(f"/v1/agents/{agent['id']}/llm", json=script, headers=acme.admin)
    key = acme.user["Authorization"].removeprefix("Bearer ")
    env = {**os.environ, "TOOLGATE_API_URL": api_url, "TOOLGATE_API_KEY": key}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "toolgate", "chat", "--agent", agent["id"], env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(b"anything new?\n"), 120)
    text = out.decode()
    assert proc.returncode == 0, err.decode()
    assert "  → list_files {}" in text and "  ✓ " in text and "All quiet." in text


def test_chat_without_a_key_says_what_to_set() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TOOLGATE_API_KEY"}
    result = subprocess.run([sys.executable, "-m", "toolgate", "chat", "--agent", "x"],
                            capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
    assert result.returncode == 2 and "TOOLGATE_API_KEY" in result.stderr
