"""Connecting to real SDK servers over each transport: the tool list, or a clear error."""

from __future__ import annotations

import pytest

from toolgate.devstack import free_port
from toolgate.mcp import McpConnectError, announced, probe
from toolgate.tools import McpServerConfig

from .conftest import HttpNotes, notes_stdio, odd_stdio

NOTES_TOOLS = ["add_note", "list_notes", "read_note", "show_config"]


async def test_stdio_sse_and_streamable_http_servers_announce_their_tools(
    sse_notes: HttpNotes, http_notes: HttpNotes
) -> None:
    for config in (notes_stdio(), sse_notes.config(), http_notes.config()):
        tools = await probe(config)
        assert sorted(t.name for t in tools) == NOTES_TOOLS, config.transport


async def test_a_malformed_schema_or_name_is_skipped_with_a_warning_and_the_rest_loads() -> None:
    found = announced("odd", "odd", await probe(odd_stdio()))
    assert [t["name"] for t in found.tools] == ["echo"]
    assert len(found.warnings) == 2
    assert "tool 'broken' skipped, bad schema" in found.warnings[0]
    assert "'mcp_odd_has.dots' is not a valid tool name" in found.warnings[1]


async def test_a_command_that_does_not_exist_is_a_clear_error() -> None:
    ghost = McpServerConfig(name="ghost", command="/nonexistent/mcp-server")
    with pytest.raises(McpConnectError, match="'ghost' cannot be reached: .*No such file"):
        await probe(ghost)


@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
async def test_a_url_that_refuses_connections_is_a_clear_error(transport: str) -> None:
    port = free_port()  # nothing listens there
    dead = McpServerConfig(name="dead", transport=transport,  # type: ignore[arg-type]
                           url=f"http://127.0.0.1:{port}/mcp", timeout_seconds=5)  # fmt: skip
    with pytest.raises(McpConnectError, match="'dead' cannot be reached: .*(onnect|refused)"):
        await probe(dead)


def test_bad_server_configs_are_refused_with_what_to_fix() -> None:
    with pytest.raises(ValueError, match="a stdio server needs a command"):
        McpServerConfig(name="x", transport="stdio")
    with pytest.raises(ValueError, match="a sse server needs an http"):
        McpServerConfig(name="x", transport="sse", url="ftp://nope")
    with pytest.raises(ValueError, match="name"):
        McpServerConfig(name="Bad Name", command="x")
