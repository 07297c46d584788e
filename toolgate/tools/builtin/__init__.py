"""Built-in tools, one module per group."""

from __future__ import annotations

from .._registry import Registry
from .fs import FsLimits, fs_tools


def builtin_registry(fs_limits: FsLimits | None = None) -> Registry:
    """A registry holding every built-in tool of this release."""
    registry = Registry()
    for tool in fs_tools(fs_limits or FsLimits()):
        registry.register(tool)
    return registry


__all__ = ["FsLimits", "builtin_registry", "fs_tools"]
