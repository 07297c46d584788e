"""Path-containment corpus: attacks that must be refused, look-alikes that must pass.

``build_tree`` lays out a real directory with the traps (symlinks and a hard link
out of the workspace, a sibling workspace whose name extends ours); ``evaluate``
runs every path through ``resolve_in_workspace`` and counts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from toolgate.tools import resolve_in_workspace
from toolgate.tools.errors import PathDenied

ATTACKS: list[str] = [
    "../outside.txt", "../../etc/passwd", "../../../../../../../../etc/shadow", "/etc/passwd",
    "//etc/passwd", "/", "~/.ssh/id_rsa", "~root/.bashrc", "..", "../", "./..", "./../outside.txt",
    "dir/../../outside.txt", "dir/./../../outside.txt", "dir/sub/../../../outside.txt",
    "link_out", "link_out/passwd", "link_out/../outside.txt", "link_passwd", "dir/up",
    "dir/up/outside.txt", "dir/up/ws2/secret.txt", "link_chain", "link_chain/passwd",
    "link_abs_dir/outside.txt", "hardlinked.txt", "../ws2/secret.txt", "../ws2",
    "../ws/../ws2/secret.txt", "inside.txt\x00.png", "\x00", "a\x00/../../etc/passwd",
    "x" * 256, "dir/" + "y" * 300, "a/" * 2100, "", "   ", "../other_tenant/agent/secret.txt",
    "dir/../../ws2/secret.txt", "link_to_parent/ws2/secret.txt",
]  # fmt: skip

LOOKALIKES: list[str] = [
    "inside.txt", "./inside.txt", "dir/../inside.txt", "dir/sub/../../inside.txt", "..foo",
    "foo..", "a..b/c.txt", "...", "....//x", ".hidden", ".../x", "dir/./x", "dir//x",
    "link_in", "link_in_dir/file.txt", "my file.txt", "ünïcødé.txt", "%2e%2e/%2e%2e/etc/passwd",
    "\u2025/x", "..\\..\\etc\\passwd", "x" * 255, "dir/" + "z" * 255, "etc/passwd", "root/.ssh",
    "dir/up_not_a_link", "-rf", "$HOME/x", "`id`", "a:b", "new/deep/path/file.txt",
]  # fmt: skip


def build_tree(base: Path) -> Path:
    """Create the workspace ``base/ws`` with its traps; return the workspace."""
    ws = base / "ws"
    (ws / "dir" / "sub").mkdir(parents=True)
    (ws / "dir" / "up_not_a_link").mkdir()
    (ws / "inside.txt").write_text("inside")
    (ws / "real_dir").mkdir()
    (ws / "real_dir" / "file.txt").write_text("ok")
    (base / "outside.txt").write_text("outside")
    (base / "ws2").mkdir()
    (base / "ws2" / "secret.txt").write_text("other workspace")
    etc = base / "etc"
    etc.mkdir()
    (etc / "passwd").write_text("root:x:0:0")
    os.symlink(etc, ws / "link_out")
    os.symlink(etc / "passwd", ws / "link_passwd")
    os.symlink("../..", ws / "dir" / "up")
    os.symlink("link_out", ws / "link_chain")
    os.symlink(str(base), ws / "link_abs_dir")
    os.symlink("..", ws / "link_to_parent")
    os.symlink("inside.txt", ws / "link_in")
    os.symlink("real_dir", ws / "link_in_dir")
    (base / "victim.txt").write_text("victim")
    os.link(base / "victim.txt", ws / "hardlinked.txt")
    return ws


@dataclass
class PathReport:
    attacks_blocked: int = 0
    attacks: int = 0
    lookalikes_allowed: int = 0
    lookalikes: int = 0
    leaked: list[str] = field(default_factory=list)
    wrongly_blocked: list[str] = field(default_factory=list)


def evaluate(base: Path) -> PathReport:
    ws = build_tree(base)
    report = PathReport()
    for path in ATTACKS:
        report.attacks += 1
        try:
            resolve_in_workspace(ws, path)
            report.leaked.append(repr(path))
        except PathDenied:
            report.attacks_blocked += 1
    for path in LOOKALIKES:
        report.lookalikes += 1
        try:
            resolve_in_workspace(ws, path)
            report.lookalikes_allowed += 1
        except PathDenied as exc:
            report.wrongly_blocked.append(f"{path!r}: {exc}")
    return report
