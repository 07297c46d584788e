from __future__ import annotations

import pytest

from toolgate.tools import Capability, infer_capability
from toolgate.tools.builtin import builtin_registry
from toolgate.tools.errors import ToolNotFound

from ..sample_tools import Echo


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("read_file", Capability.READ_ONLY),
        ("memory_search", Capability.READ_ONLY),
        ("web_fetch", Capability.READ_ONLY),
        ("session_status", Capability.READ_ONLY),
        ("spawn", Capability.ASYNC),
        ("mcp_github_create_issue", Capability.MCP_BRIDGED),
        ("write_file", Capability.MUTATING),
        ("exec", Capability.MUTATING),
        ("something_new", Capability.MUTATING),  # unknown: the safe guess
    ],
)
def test_capability_inferred_from_name(name: str, expected: Capability) -> None:
    assert infer_capability(name) is expected


def test_builtin_fs_tools_have_explicit_capabilities() -> None:
    registry = builtin_registry()
    assert registry.describe("read_file").capability is Capability.READ_ONLY
    assert registry.describe("list_files").capability is Capability.READ_ONLY
    assert registry.describe("write_file").capability is Capability.MUTATING
    assert registry.describe("edit").capability is Capability.MUTATING


def test_unknown_tool_error_says_where_to_look() -> None:
    with pytest.raises(ToolNotFound, match="GET /v1/tools"):
        builtin_registry().get("nope")


def test_clone_is_an_overlay_that_leaves_the_original_alone() -> None:
    shared = builtin_registry()
    overlay = shared.clone()
    overlay.register(Echo())
    assert "echo_text" in overlay and "read_file" in overlay
    assert "echo_text" not in shared


def test_registering_a_name_twice_is_refused() -> None:
    registry = builtin_registry()
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.get("read_file"))
