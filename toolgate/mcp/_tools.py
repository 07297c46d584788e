"""What a server announces, made fit to register: ``mcp_<prefix>_<tool>`` names that
LLM providers accept, and schemas the gate can check arguments against. A tool that
fails either is skipped with a warning, and the others still load."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import SchemaError
from mcp.types import CallToolResult, TextContent, Tool

from ..tools import check_schema, tool_name

#: What OpenAI and Anthropic accept as a tool name.
PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True, slots=True)
class Announced:
    tools: list[dict[str, Any]]
    """``{"name", "description", "input_schema"}`` per usable tool, as stored."""
    warnings: list[str]


def announced(server: str, prefix: str, remote: list[Tool]) -> Announced:
    tools, warnings = [], []
    for tool in remote:
        name = tool_name(prefix, tool.name)
        if not PROVIDER_NAME.match(name):
            warnings.append(f"{server}: tool {tool.name!r} skipped: {name!r} is not a valid "
                            "tool name (letters, digits, _ and -, at most 64)")  # fmt: skip
            continue
        try:
            check_schema(tool.input_schema)
        except SchemaError as exc:
            warnings.append(f"{server}: tool {tool.name!r} skipped, bad schema: {exc.message}")
            continue
        tools.append({"name": tool.name, "description": (tool.description or "")[:2000],
                      "input_schema": dict(tool.input_schema)})  # fmt: skip
    return Announced(tools, warnings)


def result_text(result: CallToolResult) -> str:
    """The text parts of a result; other parts are named, not inlined."""
    parts = []
    for item in result.content:
        if isinstance(item, TextContent):
            parts.append(item.text)
        else:
            parts.append(f"[{item.type} content omitted]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content))
    return "\n".join(parts)
