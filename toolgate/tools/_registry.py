"""The registry: which tools exist, with their resolved capability.

Per-agent overlays (custom tools, MCP tools) are built on a ``clone()``, so the shared
registry of a worker is never mutated by one agent's tools.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._capabilities import infer_capability
from ._model import Capability
from ._tool import Tool
from .errors import ToolNotFound


@dataclass(frozen=True, slots=True)
class ToolDescriptor:
    """What callers (the LLM, API clients, the workflow scheduler) may know of a tool."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    capability: Capability
    groups: frozenset[str]
    timeout_seconds: float
    idempotent: bool


class Registry:
    """Name → tool, with capability metadata resolved at registration."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> None:
        """Add a tool; a second tool with the same name is a programming error."""
        name = tool.spec.name
        if name in self._tools:
            raise ValueError(f"tool {name!r} is already registered")
        self._tools[name] = tool

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise ToolNotFound(
                f"unknown tool {name!r}; list the available tools with GET /v1/tools"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(sorted(self._tools.values(), key=lambda t: t.spec.name))

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def describe(self, name: str) -> ToolDescriptor:
        spec = self.get(name).spec
        return ToolDescriptor(
            name=spec.name,
            description=spec.description,
            parameters=spec.parameters,
            capability=spec.capability or infer_capability(spec.name),
            groups=spec.groups,
            timeout_seconds=spec.timeout_seconds,
            idempotent=spec.idempotent,
        )

    def describe_all(self) -> list[ToolDescriptor]:
        return [self.describe(name) for name in self.names()]

    def clone(self) -> Registry:
        """A copy to overlay per-agent tools on, leaving this one untouched."""
        copy = Registry()
        copy._tools = dict(self._tools)
        return copy
