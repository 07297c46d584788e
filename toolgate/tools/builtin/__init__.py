"""Built-in tools, one module per group."""

from __future__ import annotations

from .._registry import Registry
from .fs import FsLimits, fs_tools
from .runtime import ExecLimits, runtime_tools
from .spawn import Delegate, Spawn


def builtin_registry(
    fs_limits: FsLimits | None = None, exec_limits: ExecLimits | None = None
) -> Registry:
    """A registry holding every built-in tool of this release."""
    registry = Registry()
    for tool in [
        *fs_tools(fs_limits or FsLimits()),
        *runtime_tools(exec_limits),
        Spawn(),
        Delegate(),
    ]:
        registry.register(tool)
    return registry


__all__ = ["ExecLimits", "FsLimits", "builtin_registry", "fs_tools", "runtime_tools"]
