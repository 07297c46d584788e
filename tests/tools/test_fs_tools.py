"""group:fs through the gate, on a real filesystem."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolgate.tools import ToolResult, governed_call, workspace_for
from toolgate.tools.builtin import FsLimits, builtin_registry

from .memory_ports import MemoryAudit, MemoryPolicies, context, governance


@pytest.fixture
def call(tmp_path: Path):
    registry = builtin_registry(FsLimits(max_file_bytes=1000, max_list_entries=5))
    policies = MemoryPolicies()
    policies.allow("acme", "a1", "group:fs")
    policies.allow("globex", "a1", "group:fs")
    gov = governance(registry, policies, MemoryAudit())
    counter = iter(range(10_000))

    async def run(tool: str, tenant: str = "acme", **args: object) -> ToolResult:
        ctx = context(
            tmp_path,
            tenant_id=tenant,
            workspace=workspace_for(tmp_path, tenant, "a1"),
            tool_call_id=f"run:{next(counter)}",
        )
        return await governed_call(gov, ctx, tool, args)

    return run


async def test_write_then_read_with_a_line_range(call) -> None:
    assert not (await call("write_file", path="notes/a.txt", content="1\n2\n3\n4\n")).is_error
    assert (await call("read_file", path="notes/a.txt")).for_llm == "1\n2\n3\n4\n"
    assert (
        await call("read_file", path="notes/a.txt", start_line=2, end_line=3)
    ).for_llm == "2\n3\n"


async def test_edit_replaces_exactly_one_match(call) -> None:
    await call("write_file", path="f.py", content="a = 1\nb = 2\n")
    result = await call("edit", path="f.py", old_string="b = 2", new_string="b = 3")
    assert result.for_llm == "edited f.py at line 2"
    assert (await call("read_file", path="f.py")).for_llm == "a = 1\nb = 3\n"


async def test_edit_with_no_match_says_so_and_changes_nothing(call) -> None:
    await call("write_file", path="f.py", content="a = 1\n")
    result = await call("edit", path="f.py", old_string="zzz", new_string="y")
    assert result.error_code == "edit_no_match" and "nothing was changed" in result.for_llm
    assert (await call("read_file", path="f.py")).for_llm == "a = 1\n"


async def test_edit_with_several_matches_names_the_lines(call) -> None:
    await call("write_file", path="f.py", content="x = 1\ny\nx = 1\n")
    result = await call("edit", path="f.py", old_string="x = 1", new_string="x = 2")
    assert result.error_code == "edit_ambiguous"
    assert "2 times" in result.for_llm and "lines 1, 3" in result.for_llm
    assert (await call("read_file", path="f.py")).for_llm == "x = 1\ny\nx = 1\n"


async def test_list_files_shows_dirs_and_cuts_long_listings(call) -> None:
    for i in range(7):
        await call("write_file", path=f"d/f{i}.txt", content="x")
    top = await call("list_files")
    assert top.for_llm == "d/"
    listing = (await call("list_files", path="d")).for_llm
    assert listing.splitlines()[:2] == ["f0.txt", "f1.txt"]
    assert "[listing cut at 5 entries]" in listing


async def test_file_over_the_size_limit_is_refused_both_ways(call, tmp_path: Path) -> None:
    result = await call("write_file", path="big.txt", content="x" * 1001)
    assert result.error_code == "file_too_large" and "1000-byte limit" in result.for_llm
    ws = workspace_for(tmp_path, "acme", "a1")
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "big.txt").write_text("y" * 5000)
    assert (await call("read_file", path="big.txt")).error_code == "file_too_large"


async def test_binary_and_non_utf8_files_are_refused_by_read_file(call, tmp_path: Path) -> None:
    ws = workspace_for(tmp_path, "acme", "a1")
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (ws / "latin1.txt").write_bytes("café".encode("latin-1"))
    assert (await call("read_file", path="img.png")).error_code == "binary_file"
    assert (await call("read_file", path="latin1.txt")).error_code == "binary_file"


async def test_missing_file_and_directory_give_clear_errors(call) -> None:
    assert (await call("read_file", path="nope.txt")).error_code == "not_found"
    await call("write_file", path="d/x.txt", content="x")
    result = await call("read_file", path="d")
    assert result.error_code == "not_found" and "use list_files" in result.for_llm


@pytest.mark.parametrize(
    "path", ["../../globex/a1/_shared/secret.txt", "/etc/passwd", "a\x00b", "x" * 300]
)
async def test_two_tenants_side_by_side_cannot_reach_each_other(
    call, tmp_path: Path, path: str
) -> None:
    await call("write_file", tenant="globex", path="secret.txt", content="globex only")
    for tool, args in [
        ("read_file", {"path": path}),
        ("write_file", {"path": path, "content": "pwned"}),
        ("edit", {"path": path, "old_string": "globex", "new_string": "pwned"}),
        ("list_files", {"path": path}),
    ]:
        result = await call(tool, tenant="acme", **args)
        assert result.error_code == "path_denied", (tool, result)
    assert (await call("read_file", tenant="globex", path="secret.txt")).for_llm == "globex only"


async def test_symlink_planted_in_the_workspace_is_not_followed_out(call, tmp_path: Path) -> None:
    ws = workspace_for(tmp_path, "acme", "a1")
    ws.mkdir(parents=True, exist_ok=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    os.symlink(victim, ws / "trap.txt")
    assert (await call("write_file", path="trap.txt", content="pwned")).error_code == "path_denied"
    assert (await call("read_file", path="trap.txt")).error_code == "path_denied"
    assert victim.read_text() == "untouched"
