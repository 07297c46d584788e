"""Capability inference for tools that register no explicit metadata (spec §3).

A wrong guess towards ``mutating`` costs a retry; a wrong guess towards ``read-only``
could run a side effect twice. So inference is conservative: only names that clearly
read are read-only, and anything unknown is mutating.
"""

from __future__ import annotations

from ._model import Capability

_READ_PREFIXES = ("read_", "list_", "get_", "search_", "fetch_", "query_", "describe_")
_READ_SUFFIXES = ("_search", "_get", "_list", "_read", "_status", "_history", "_expand")
_READ_NAMES = frozenset({"datetime", "web_fetch", "web_search", "sessions_list"})
_ASYNC_NAMES = frozenset({"spawn"})


def infer_capability(name: str) -> Capability:
    """Guess a tool's capability from its name alone."""
    if name.startswith("mcp_"):
        return Capability.MCP_BRIDGED
    if name in _ASYNC_NAMES:
        return Capability.ASYNC
    if name in _READ_NAMES or name.startswith(_READ_PREFIXES) or name.endswith(_READ_SUFFIXES):
        return Capability.READ_ONLY
    return Capability.MUTATING
