"""A local HTTP server that speaks whatever the test queues: LLM wire formats, webhooks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from toolgate.devstack import free_port


@dataclass
class WireServer:
    """A local HTTP server that answers with queued (status, headers, body) replies
    and records every request: the LLM vendors' wire formats, on 127.0.0.1."""

    url: str
    replies: list[tuple[int, dict[str, str], str]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    answer: Callable[[dict[str, Any]], tuple[int, Any]] | None = None
    """When set, computes the reply from the request's JSON instead of the queue."""
    delay: float = 0.0

    def reply(self, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> None:
        text = body if isinstance(body, str) else json.dumps(body)
        self.replies.append((status, headers or {}, text))


@pytest.fixture
async def wire_server() -> AsyncIterator[WireServer]:
    port = free_port()
    server_state = WireServer(url=f"http://127.0.0.1:{port}")

    async def handle(request: Request) -> Response:
        server_state.requests.append(
            {"path": request.url.path, "headers": dict(request.headers),
             "json": json.loads(await request.body() or b"null")}
        )  # fmt: skip
        if server_state.delay:
            await asyncio.sleep(server_state.delay)  # a slow peer, for timeouts
        if server_state.answer is not None:
            status, body = server_state.answer(server_state.requests[-1]["json"])
            return Response(json.dumps(body), status_code=status, media_type="application/json")
        status, headers, text = server_state.replies.pop(0)
        return Response(text, status_code=status, headers=headers, media_type="application/json")

    app = Starlette(routes=[Route("/{path:path}", handle, methods=["POST"])])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)  # waiting for the socket, not a timing assertion
    try:
        yield server_state
    finally:
        server.should_exit = True
        await task


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client
