"""Step 6 of the gate for shell commands: the verdict, the toggles, the guard.

Every group is denied unless a layer turns it off; layers merge per key, the more
specific winning (global → tenant → agent, spec §9). ``unparseable`` is not a group
and cannot be turned off. ``package_install`` asks for a human instead of refusing
when it is the only group that objects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .._model import ToolContext
from .._paths import resolve_in_workspace
from ..cli import CliBinary, denied_by, scanned_arguments
from ..errors import ApprovalRequired, CommandDenied, InvalidSettings, ToolRefusal
from ._analyze import analyze, programs_in, sole_command
from ._findings import APPROVAL_GROUP, DENY_GROUPS, UNPARSEABLE


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    group: str | None
    reason: str
    command: str = ""
    """The part of the command the reason is about."""
    needs_approval: bool = False

    def as_json(self) -> dict[str, object]:
        return {
            "allowed": self.allowed,
            "group": self.group,
            "reason": self.reason,
            "needs_approval": self.needs_approval,
        }


def merge_deny_groups(*layers: Mapping[str, bool] | None) -> dict[str, bool]:
    """Every group denied by default; each layer may set keys; the last layer wins."""
    merged = dict.fromkeys(DENY_GROUPS, True)
    for layer in layers:
        merged.update(layer or {})
    return merged


def check_deny_groups(value: object, where: str) -> dict[str, bool]:
    """Validate a stored toggle map on write: known groups, boolean values."""
    if not isinstance(value, dict):
        raise InvalidSettings(f"{where} must be an object of group → true/false", field=where)
    for key, flag in value.items():
        if key not in DENY_GROUPS:
            raise InvalidSettings(
                f"{where}.{key}: unknown deny group; use one of {', '.join(DENY_GROUPS)}",
                field=f"{where}.{key}",
            )
        if not isinstance(flag, bool):
            raise InvalidSettings(f"{where}.{key} must be true or false", field=f"{where}.{key}")
    return dict(value)


def check_command(
    command: str,
    denied: Mapping[str, bool] | None = None,
    workspace: Path | None = None,
) -> Verdict:
    """Judge ``command`` with the given toggles (default: every group denied).

    With a ``workspace``, scripts the command runs from it (``sh x.sh``, ``./x.sh``,
    ``source x``, ``python3 x.py``) are read and judged by their current content.
    """
    if not command.strip():
        return Verdict(False, UNPARSEABLE, "the command is empty")
    toggles = merge_deny_groups(denied)
    findings = analyze(command, _reader(workspace) if workspace else _no_files)
    active = [f for f in findings if f.group == UNPARSEABLE or toggles.get(f.group, True)]
    blocking = [f for f in active if f.group != APPROVAL_GROUP]
    if blocking:
        first = blocking[0]
        return Verdict(False, first.group, first.reason, first.command)
    if active:
        first = active[0]
        return Verdict(False, first.group, first.reason, first.command, needs_approval=True)
    return Verdict(True, None, "no deny group matched")


MAX_SCRIPT_BYTES = 256 * 1024


def _no_files(_path: str) -> str | None:
    return None


def _reader(workspace: Path) -> Callable[[str], str | None]:
    def read(path: str) -> str | None:
        try:
            real = resolve_in_workspace(workspace, path)
            with real.open("rb") as fh:
                data = fh.read(MAX_SCRIPT_BYTES + 1)
        except (ToolRefusal, OSError):
            return None
        if len(data) > MAX_SCRIPT_BYTES:
            return "# script too large to judge\nif then ("  # unparseable: refused
        return data.decode("utf-8", errors="replace")

    return read


class Approvals(Protocol):
    """Human decisions on commands that need one (package installs)."""

    async def approved(self, ctx: ToolContext, command: str) -> bool:
        """True if a human approved exactly this command for this call."""
        ...

    async def request(self, ctx: ToolContext, command: str, tool: str, reason: str) -> str:
        """Record a pending request; returns its id."""
        ...


class ShellGuard:
    """The CommandGuard of the gate: toggles come with the call's context."""

    def __init__(self, approvals: Approvals | None = None) -> None:
        self._approvals = approvals

    async def check(self, ctx: ToolContext, command: str, tool: str = "exec") -> None:
        verdict = check_command(command, ctx.shell_deny_groups, ctx.workspace)
        if verdict.allowed:
            check_credentialed(ctx, command)
            return
        details = {"group": verdict.group or "", "reason": verdict.reason}
        if verdict.needs_approval and self._approvals is not None:
            if await self._approvals.approved(ctx, command):
                return
            approval = await self._approvals.request(ctx, command, tool, verdict.reason)
            raise ApprovalRequired(
                f"{verdict.reason}: this needs a human's approval (approval {approval}); "
                "an admin decides with POST /v1/approvals/{id}",
                details={**details, "approval_id": approval},
            )
        raise CommandDenied(
            f"command denied by shell deny group {verdict.group!r}: {verdict.reason}",
            details=details,
        )


CREDENTIALED = "credentialed_cli"


def check_credentialed(ctx: ToolContext, command: str) -> None:
    """A registered CLI runs only for a granted agent, alone, with allowed arguments.

    The program is found after unwrapping (``sh -c "gh ..."``, ``env``, absolute
    paths), so a wrapper cannot hide it.
    """
    binaries: Mapping[str, CliBinary] = ctx.cli_binaries
    used = sorted(programs_in(command) & set(binaries)) if binaries else []
    if not used:
        return
    name = used[0]
    binary = binaries[name]
    details = {"group": CREDENTIALED, "binary": name}
    if ctx.agent_id not in binary.granted_agents:
        raise CommandDenied(
            f"{name} is a credentialed CLI and this agent has no grant for it; "
            f"an admin grants it with PUT /v1/cli-binaries/{binary.id}/grants/{ctx.agent_id}",
            code="cli_not_granted",
            details=details,
        )
    argv = sole_command(command)
    if argv is None or argv[0].rsplit("/", 1)[-1] != name:
        raise CommandDenied(
            f"{name} is a credentialed CLI: run it on its own, without pipes, redirects, "
            "variables or other commands",
            code="cli_not_alone",
            details=details,
        )
    pattern = denied_by(binary, scanned_arguments(name, argv[1:], ctx.keyword_rules))
    if pattern is not None:
        raise CommandDenied(
            f"{name} arguments match the deny pattern {pattern!r} of this binary",
            code="cli_args_denied",
            details={**details, "pattern": pattern},
        )
