"""A real MCP server (the SDK's low-level one, over stdio) that announces what a
careless server might: a tool whose schema is malformed, a name no LLM provider
accepts, and one good tool that must still load. ``echo`` with ``hold_until`` answers
only once that file exists: a call that stays in flight for as long as a test wants."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

GOOD = types.Tool(name="echo", input_schema={"type": "object", "properties":
                  {"text": {"type": "string"}, "hold_until": {"type": "string"}},
                  "required": ["text"]})  # fmt: skip
BROKEN = types.Tool(name="broken", input_schema={"type": "object",
                    "properties": {"x": {"type": 5}}})  # fmt: skip
ODD_NAME = types.Tool(name="has.dots", input_schema={"type": "object"})


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[GOOD, BROKEN, ODD_NAME])


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    text = arguments.get("text", "")
    if arguments.get("hold_until"):
        hold = Path(arguments["hold_until"])
        for _ in range(1200):  # at most 60 s
            if hold.exists():
                break
            await anyio.sleep(0.05)
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"echo: {text}")])


server = Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)  # type: ignore[arg-type]


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
