"""Workspace path containment (spec §6 "Path Security").

Every path a tool receives is resolved against the caller's workspace and refused
unless the *real* target (symlinks followed) stays inside it. Refused outright:
NUL bytes, absolute paths, over-long names, and files with more than one hard link
(a hard link looks like an ordinary file but may share its inode with a file outside
the workspace, which no path check can see).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .errors import PathDenied

MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 4096
_SAFE_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")


def workspace_for(root: Path, tenant_id: str, agent_id: str, user_id: str = "") -> Path:
    """The workspace of (tenant, agent, user): a private directory under ``root``.

    Ids come from our own database but user ids are arbitrary strings from a channel,
    so every segment is checked; an unsafe one is refused rather than rewritten, so
    two users can never be mapped onto one directory.
    """
    parts = [tenant_id, agent_id, user_id or "_shared"]
    for part in parts:
        if part != "_shared" and (not _SAFE_SEGMENT.fullmatch(part) or part in {".", ".."}):
            raise PathDenied(
                f"id {part!r} cannot name a workspace directory; "
                "use letters, digits, '_', '.', '-' (at most 64)"
            )
    return root.joinpath(*parts)


def resolve_in_workspace(workspace: Path, user_path: str) -> Path:
    """Resolve ``user_path`` inside ``workspace`` or raise PathDenied saying why.

    The returned path is the real path (no symlinks), so callers open exactly what
    was checked. A missing final component is fine (write_file creates it), but its
    parent must resolve inside the workspace.
    """
    if "\x00" in user_path:
        raise PathDenied("path contains a NUL byte")
    if not user_path.strip():
        raise PathDenied("path is empty; give a path relative to the workspace")
    encoded = os.fsencode(user_path)
    if len(encoded) > MAX_PATH_BYTES:
        raise PathDenied(f"path is longer than {MAX_PATH_BYTES} bytes")
    if any(len(part) > MAX_COMPONENT_BYTES for part in encoded.split(b"/")):
        raise PathDenied(f"a path component is longer than {MAX_COMPONENT_BYTES} bytes")
    if os.path.isabs(user_path) or user_path.startswith("~"):
        raise PathDenied(
            f"absolute path {user_path!r} refused; paths are relative to the workspace"
        )

    root = Path(os.path.realpath(workspace))
    target = Path(os.path.realpath(root / user_path))
    if target != root and root not in target.parents:
        raise PathDenied(f"path {user_path!r} leads outside the workspace")
    if target.is_file() and target.stat().st_nlink > 1:
        raise PathDenied(
            f"path {user_path!r} is a file with several hard links; "
            "hard-linked files are refused because they may alias files outside the workspace"
        )
    return target


def display_path(workspace: Path, real: Path) -> str:
    """The workspace-relative form of a resolved path, for messages to the LLM."""
    root = Path(os.path.realpath(workspace))
    rel = real.relative_to(root).as_posix()
    return rel or "."
