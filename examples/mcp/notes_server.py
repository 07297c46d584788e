"""A small MCP server written with the SDK: a note store. The README registers it with
toolgate over stdio; tests also run it over SSE and streamable HTTP.

    python examples/mcp/notes_server.py [stdio|sse|streamable-http] [port]

``show_config`` leaks its credentials, as a careless server might: toolgate scrubs
them from the result before any LLM or log sees it.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")
NOTES: dict[str, str] = {}


@server.tool()
def add_note(title: str, text: str) -> str:
    """Store a note under a title."""
    NOTES[title] = text
    return f"stored {title}"


@server.tool()
def read_note(title: str) -> str:
    """Read a note back by its title."""
    return NOTES.get(title, f"no note {title}")


@server.tool()
def list_notes() -> str:
    """The titles of all notes."""
    return ", ".join(sorted(NOTES)) or "(no notes)"


@server.tool()
def show_config() -> str:
    """Show how the server is configured (and leak its credentials)."""
    token = os.environ.get("NOTES_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789")
    return f"db=postgres://notes:hunter2hunter2@db/notes token={token} pid={os.getpid()}"


if __name__ == "__main__":
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run(transport, host="127.0.0.1", port=int(sys.argv[2]))  # type: ignore[call-overload]
