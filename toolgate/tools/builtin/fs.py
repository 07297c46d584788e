"""group:fs — read_file, write_file, edit, list_files (spec §4).

Every path goes through ``resolve_in_workspace``; files are opened with O_NOFOLLOW
on the resolved path so a symlink swapped in after the check is not followed.
Blocking file I/O runs in a thread so the worker's event loop keeps heartbeating.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._model import Capability, ToolContext, ToolResult
from .._paths import display_path, resolve_in_workspace
from .._tool import ToolSpec
from ..errors import (
    BinaryFile,
    EditMismatch,
    FileTooLarge,
    InvalidArguments,
    NotFound,
    PathDenied,
)

_FS = frozenset({"fs"})


@dataclass(frozen=True, slots=True)
class FsLimits:
    """Size limits, captured when the tools are built (from TOOLGATE_MAX_FILE_BYTES)."""

    max_file_bytes: int = 1_048_576
    max_list_entries: int = 1000


def _read_bytes(path: Path, limit: int, shown: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise NotFound(f"file {shown!r} does not exist") from None
    except IsADirectoryError:
        raise NotFound(f"{shown!r} is a directory; use list_files") from None
    except OSError as exc:
        raise PathDenied(f"cannot open {shown!r}: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise NotFound(f"{shown!r} is a directory; use list_files")
        raise PathDenied(f"{shown!r} is not a regular file")
    if info.st_size > limit:
        os.close(fd)
        raise FileTooLarge(f"file {shown!r} is {info.st_size} bytes, over the {limit}-byte limit")
    with os.fdopen(fd, "rb") as fh:
        return fh.read(limit + 1)


def _decode_text(data: bytes, shown: str) -> str:
    if b"\x00" in data[:8192]:
        raise BinaryFile(f"file {shown!r} is binary; read_file returns text only")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BinaryFile(f"file {shown!r} is not UTF-8 text; read_file returns text only") from None


def _write_text(path: Path, content: str, shown: str) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, 0o644)
    except IsADirectoryError:
        raise PathDenied(f"{shown!r} is a directory") from None
    except OSError as exc:
        raise PathDenied(f"cannot write {shown!r}: {exc.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(content)


def _workspace(ctx: ToolContext) -> Path:
    ctx.workspace.mkdir(parents=True, exist_ok=True, mode=0o700)
    return ctx.workspace


class _FsTool:
    """Shared by the fs tools: size limits, and blocking I/O on a worker thread."""

    spec: ToolSpec

    def __init__(self, limits: FsLimits) -> None:
        self._limits = limits

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        return await asyncio.to_thread(self._run, ctx, args)

    def _run(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        raise NotImplementedError


class ReadFile(_FsTool):
    spec = ToolSpec(
        name="read_file",
        description="Read a workspace text file, optionally only lines start_line..end_line.",
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path relative to the workspace"},
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        capability=Capability.READ_ONLY,
        groups=_FS,
        timeout_seconds=30,
    )

    def _run(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        shown = str(args["path"])
        target = resolve_in_workspace(_workspace(ctx), shown)
        text = _decode_text(_read_bytes(target, self._limits.max_file_bytes, shown), shown)
        start, end = args.get("start_line"), args.get("end_line")
        if start is None and end is None:
            return ToolResult.ok(text)
        lines = text.splitlines(keepends=True)
        first = int(start or 1)
        last = int(end or len(lines))
        if last < first:
            raise InvalidArguments(
                f"end_line {last} is before start_line {first}", code="invalid_range"
            )
        return ToolResult.ok("".join(lines[first - 1 : last]))


class WriteFile(_FsTool):
    spec = ToolSpec(
        name="write_file",
        description="Create or overwrite a workspace text file; parent directories are created.",
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "content": {"type": "string"},
            },
            "required": ["path", "content"],
            "additionalProperties": False,
        },
        capability=Capability.MUTATING,
        groups=_FS,
        timeout_seconds=30,
        idempotent=True,  # the same content written twice leaves the same file
    )

    def _run(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        shown, content = str(args["path"]), str(args["content"])
        size = len(content.encode("utf-8"))
        if size > self._limits.max_file_bytes:
            raise FileTooLarge(
                f"content is {size} bytes, over the {self._limits.max_file_bytes}-byte limit"
            )
        workspace = _workspace(ctx)
        target = resolve_in_workspace(workspace, shown)
        target.parent.mkdir(parents=True, exist_ok=True)
        # mkdir may have followed nothing new, but re-check: a parent could be a link.
        target = resolve_in_workspace(workspace, shown)
        _write_text(target, content, shown)
        return ToolResult.ok(f"wrote {size} bytes to {display_path(workspace, target)}")


class Edit(_FsTool):
    spec = ToolSpec(
        name="edit",
        description=(
            "Replace old_string with new_string in a workspace file. old_string must occur "
            "exactly once; include surrounding lines to make it unique."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old_string": {"type": "string", "minLength": 1},
                "new_string": {"type": "string"},
            },
            "required": ["path", "old_string", "new_string"],
            "additionalProperties": False,
        },
        capability=Capability.MUTATING,
        groups=_FS,
        timeout_seconds=30,
    )

    def _run(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        shown = str(args["path"])
        old, new = str(args["old_string"]), str(args["new_string"])
        target = resolve_in_workspace(_workspace(ctx), shown)
        text = _decode_text(_read_bytes(target, self._limits.max_file_bytes, shown), shown)
        count = text.count(old)
        if count == 0:
            raise EditMismatch(f"old_string was not found in {shown!r}; nothing was changed")
        if count > 1:
            lines = _line_numbers(text, old)
            raise EditMismatch(
                f"old_string occurs {count} times in {shown!r} (lines {lines}); "
                "include more context so it matches once. Nothing was changed",
                code="edit_ambiguous",
            )
        updated = text.replace(old, new, 1)
        if len(updated.encode("utf-8")) > self._limits.max_file_bytes:
            raise FileTooLarge(f"the edit would grow {shown!r} over the size limit")
        _write_text(target, updated, shown)
        line = text[: text.index(old)].count("\n") + 1
        return ToolResult.ok(f"edited {shown} at line {line}")


def _line_numbers(text: str, needle: str) -> str:
    found, start = [], 0
    while (index := text.find(needle, start)) != -1:
        found.append(str(text[:index].count("\n") + 1))
        start = index + 1
    return ", ".join(found)


class ListFiles(_FsTool):
    spec = ToolSpec(
        name="list_files",
        description="List a workspace directory: one entry per line, directories end with '/'.",
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "default": "."},
                "recursive": {"type": "boolean", "default": False},
            },
            "additionalProperties": False,
        },
        capability=Capability.READ_ONLY,
        groups=_FS,
        timeout_seconds=30,
    )

    def _run(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        shown = str(args.get("path", "."))
        workspace = _workspace(ctx)
        target = resolve_in_workspace(workspace, shown)
        if not target.is_dir():
            raise NotFound(f"directory {shown!r} does not exist")
        entries: list[str] = []
        cut = False
        walker = os.walk(target) if args.get("recursive") else [next(os.walk(target))]
        for folder, dirs, files in walker:
            dirs.sort()  # os.walk does not follow symlinked dirs: containment holds
            rel = Path(folder).relative_to(target)
            for name in [*(d + "/" for d in dirs), *sorted(files)]:
                if len(entries) >= self._limits.max_list_entries:
                    cut = True
                    break
                entries.append((rel / name).as_posix() + ("/" if name.endswith("/") else ""))
        listing = "\n".join(entries) if entries else "(empty)"
        if cut:
            listing += f"\n[listing cut at {self._limits.max_list_entries} entries]"
        return ToolResult.ok(listing)


def fs_tools(limits: FsLimits) -> list[ReadFile | WriteFile | Edit | ListFiles]:
    return [ReadFile(limits), WriteFile(limits), Edit(limits), ListFiles(limits)]
