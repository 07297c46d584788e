"""Tool groups and profiles: the names allow and deny lists may use (spec §6).

An entry of a list is a tool name, ``*``, or ``group:<name>``. Groups come from four
places, looked up in this order:

* the static groups of the spec table (``fs``, ``runtime``, ...);
* ``builtin``: every registered tool that is not MCP-bridged or custom (the spec's
  ``goclaw`` composite under our name);
* ``mcp`` and ``mcp:<server>``: MCP-bridged tools, which declare ``mcp:<server>`` in
  their spec's groups when the MCP manager registers them;
* groups a tenant or the platform defines itself, which may name other groups.

Expansion never raises: names that match nothing and loops between defined groups
become warnings, so one typo in a config cannot take an agent down.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ._capabilities import infer_capability
from ._model import Capability
from ._registry import Registry

#: Spec §6 tool groups.
TOOL_GROUPS: dict[str, frozenset[str]] = {
    "fs": frozenset({"read_file", "write_file", "list_files", "edit", "send_file"}),
    "runtime": frozenset({"exec"}),
    "web": frozenset({"web_search", "web_fetch"}),
    "memory": frozenset({"memory_search", "memory_get"}),
    "sessions": frozenset(
        {"sessions_list", "sessions_history", "sessions_send", "spawn", "session_status"}
    ),
    "automation": frozenset({"cron"}),
    "messaging": frozenset({"message", "create_forum_topic", "list_group_members"}),
    "team": frozenset({"team_tasks"}),
}

#: Spec §6 profiles: the starting set of the pipeline.
PROFILES: dict[str, tuple[str, ...]] = {
    "full": ("*",),
    "coding": (
        "group:fs",
        "group:runtime",
        "group:sessions",
        "group:memory",
        "group:web",
        "read_image",
        "create_image",
        "skill_search",
    ),
    "messaging": (
        "group:messaging",
        "group:web",
        "sessions_list",
        "sessions_history",
        "session_status",
        "read_image",
        "skill_search",
    ),
    "minimal": ("session_status",),
}

BUILTIN_GROUP = "builtin"
CUSTOM_GROUP = "custom"
"""Custom shell tools carry this group, which keeps them out of ``group:builtin``."""
MAX_LIST_ENTRIES = 1000
MAX_ENTRY_LENGTH = 200
MAX_DEFINED_GROUPS = 100


@dataclass(slots=True)
class Expansion:
    """The tool names a list names, and what in it named nothing."""

    names: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)


class GroupCatalog:
    """Expands list entries against one registry and a set of defined groups."""

    def __init__(self, registry: Registry, defined: Mapping[str, Iterable[str]] = {}) -> None:
        self._registered = frozenset(registry.names())
        self._defined = {name: tuple(entries) for name, entries in defined.items()}
        self._dynamic: dict[str, set[str]] = {}
        builtin: set[str] = set()
        for tool in registry:
            spec = tool.spec
            for group in spec.groups:
                self._dynamic.setdefault(group, set()).add(spec.name)
            capability = spec.capability or infer_capability(spec.name)
            if capability is Capability.MCP_BRIDGED:
                self._dynamic.setdefault("mcp", set()).add(spec.name)
            elif CUSTOM_GROUP not in spec.groups:
                builtin.add(spec.name)
        self._dynamic[BUILTIN_GROUP] = builtin

    @property
    def registered(self) -> frozenset[str]:
        return self._registered

    def known_group(self, name: str) -> bool:
        return (
            name in TOOL_GROUPS
            or name in self._dynamic
            or name in self._defined
            or name == "mcp"
            or name.startswith("mcp:")
        )

    def expand(self, entries: Iterable[str]) -> Expansion:
        out = Expansion()
        for entry in entries:
            self._expand_entry(entry, out, ())
        return out

    def _expand_entry(self, entry: str, out: Expansion, path: tuple[str, ...]) -> None:
        if entry == "*":
            out.names |= self._registered
        elif entry.startswith("group:"):
            self._expand_group(entry.removeprefix("group:"), out, path)
        elif entry in self._registered:
            out.names.add(entry)
        else:
            out.warnings.append(f"{entry!r} names no registered tool")

    def _expand_group(self, group: str, out: Expansion, path: tuple[str, ...]) -> None:
        if group in path:
            loop = " → ".join(f"group:{g}" for g in (*path, group))
            out.warnings.append(f"group loop ignored: {loop}")
            return
        if group in self._defined:
            for entry in self._defined[group]:
                self._expand_entry(entry, out, (*path, group))
            return
        if not self.known_group(group):
            out.warnings.append(f"'group:{group}' names no known group")
            return
        members = set(TOOL_GROUPS.get(group, frozenset())) | self._dynamic.get(group, set())
        out.names |= members & self._registered


def list_problems(entries: Iterable[str], where: str) -> list[str]:
    """Shape problems that make a list unacceptable on write (not mere warnings)."""
    entries = list(entries)
    problems = []
    if len(entries) > MAX_LIST_ENTRIES:
        problems.append(f"{where} has {len(entries)} entries; at most {MAX_LIST_ENTRIES}")
    for entry in entries:
        if not entry or len(entry) > MAX_ENTRY_LENGTH:
            problems.append(f"{where} has an empty entry or one over {MAX_ENTRY_LENGTH} chars")
            break
    return problems
