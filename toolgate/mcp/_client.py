"""Talking to one MCP server with the SDK's client: open a session over its transport,
list its tools, map its errors. Protocol errors follow temporalio-mcp's contract: a
request the server will never accept (parse error, bad request or params, unknown
method) is final; the rest (a server that is down, a lost connection) is an outage."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import PaginatedRequestParams, Tool

from ..tools import McpServerConfig

#: JSON-RPC codes a retry cannot fix (parse error, invalid request, method not found,
#: invalid params).
FINAL_CODES = frozenset({-32700, -32600, -32601, -32602})
REQUEST_TIMEOUT = -32001


class McpConnectError(Exception):
    """The server could not be reached or did not complete the handshake."""


def describe(exc: BaseException) -> str:
    """One line for an operator: the innermost cause of a (grouped) failure."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, MCPError) else f"{type(exc).__name__}: {text}"


@asynccontextmanager
async def session(config: McpServerConfig) -> AsyncIterator[ClientSession]:
    """A client session over the server's transport (not yet initialised); the
    transport, and a stdio server's process, close on exit."""
    async with _streams(config) as (read, write), ClientSession(
        read, write, read_timeout_seconds=config.timeout_seconds
    ) as client:  # fmt: skip
        yield client


async def initialise(client: ClientSession) -> list[Tool]:
    """The handshake and the tool list, every page of it."""
    await client.initialize()
    tools: list[Tool] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(
            params=None if cursor is None else PaginatedRequestParams(cursor=cursor)
        )
        tools += page.tools
        cursor = page.next_cursor
        if not cursor or len(tools) > 2000:
            return tools


@asynccontextmanager
async def _streams(config: McpServerConfig) -> AsyncIterator[tuple[Any, Any]]:
    if config.transport == "stdio":
        params = StdioServerParameters(command=config.command, args=config.args,
                                       env=config.env or None)  # fmt: skip
        async with stdio_client(params) as (read, write):
            yield read, write
    elif config.transport == "sse":
        async with sse_client(config.url, headers=config.headers,
                              timeout=config.timeout_seconds) as (read, write):  # fmt: skip
            yield read, write
    else:
        http = create_mcp_http_client(headers=config.headers,
                                      timeout=httpx2.Timeout(config.timeout_seconds))  # fmt: skip
        async with http, streamable_http_client(config.url, http_client=http) as streams:
            yield streams[0], streams[1]


async def probe(config: McpServerConfig) -> list[Tool]:
    """Connect once, list the tools, disconnect: "test connection"."""
    try:
        async with session(config) as client:
            return await initialise(client)
    except Exception as exc:
        raise McpConnectError(
            f"MCP server {config.name!r} cannot be reached: {describe(exc)}"
        ) from exc
