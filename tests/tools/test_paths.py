from __future__ import annotations

from pathlib import Path

import pytest

from toolgate.tools import resolve_in_workspace, workspace_for
from toolgate.tools.errors import PathDenied

from .path_corpus import evaluate


def test_corpus_every_attack_is_refused_and_every_lookalike_allowed(tmp_path: Path) -> None:
    report = evaluate(tmp_path)
    assert report.attacks >= 40 and report.lookalikes >= 30
    assert report.leaked == [], "paths that escaped the workspace"
    assert report.wrongly_blocked == [], "harmless paths that were refused"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("a\x00b", "NUL byte"),
        ("/etc/passwd", "absolute path"),
        ("../x", "outside the workspace"),
        ("x" * 300, "longer than 255 bytes"),
        ("", "empty"),
    ],
)
def test_refusals_say_why(tmp_path: Path, path: str, reason: str) -> None:
    with pytest.raises(PathDenied, match=reason):
        resolve_in_workspace(tmp_path, path)


def test_workspaces_are_per_tenant_agent_and_user(tmp_path: Path) -> None:
    a = workspace_for(tmp_path, "acme", "agent1", "alice")
    b = workspace_for(tmp_path, "globex", "agent1", "alice")
    shared = workspace_for(tmp_path, "acme", "agent1", "")
    assert len({a, b, shared}) == 3
    assert a.relative_to(tmp_path).parts == ("acme", "agent1", "alice")


@pytest.mark.parametrize("bad", ["..", "../x", "a/b", "", "x" * 65, "-leading"])
def test_ids_that_cannot_name_a_directory_are_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(PathDenied, match="cannot name a workspace"):
        workspace_for(tmp_path, "acme", "agent1", bad) if bad else workspace_for(tmp_path, bad, "a")
