"""Credential adapters (spec §8a): turn a stored credential into what a binary expects.

``should_inject(argv)`` skips local-only subcommands (``git status`` gets no token);
``prepare`` returns an :class:`Injection`: argv to insert after the program name,
environment for the child, a cleanup to run afterwards, and the values to scrub.
Unknown or empty adapter names fall back to ``passthrough`` (the stored variables,
as they are), so presets without an adapter keep the plain env injection.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


@dataclass(slots=True)
class Injection:
    argv_prefix: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cleanup: Callable[[], None] | None = None
    scrub_values: list[str] = field(default_factory=list)


class CredentialAdapter(Protocol):
    name: str

    def should_inject(self, argv: list[str]) -> bool: ...

    def prepare(self, argv: list[str], secrets: Mapping[str, str]) -> Injection: ...


class Passthrough:
    name = "passthrough"

    def should_inject(self, argv: list[str]) -> bool:  # noqa: ARG002 - always
        return True

    def prepare(self, argv: list[str], secrets: Mapping[str, str]) -> Injection:  # noqa: ARG002
        return Injection(env=dict(secrets), scrub_values=[v for v in secrets.values() if v])


_ASKPASS = """#!/bin/sh
case "$1" in
  Username*) printf '%s\\n' "${TOOLGATE_GIT_USER:-x-access-token}" ;;
  *) printf '%s\\n' "$TOOLGATE_GIT_TOKEN" ;;
esac
"""


class GitAdapter:
    """A token for https remotes through a one-shot askpass helper.

    The token travels in the child's environment only; the helper script (which holds
    no secret) lives in a private temporary directory removed after the run. Other
    credential helpers are switched off for the call so the token is never stored.
    """

    name = "git"
    REMOTE = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote"})

    def should_inject(self, argv: list[str]) -> bool:
        return any(arg in self.REMOTE for arg in argv[1:] if not arg.startswith("-"))

    def prepare(self, argv: list[str], secrets: Mapping[str, str]) -> Injection:  # noqa: ARG002
        token = secrets.get("GIT_TOKEN") or next(iter(secrets.values()), "")
        directory = Path(tempfile.mkdtemp(prefix="toolgate-git-"))
        helper = directory / "askpass.sh"
        helper.write_text(_ASKPASS)
        helper.chmod(0o700)
        env = {"GIT_ASKPASS": str(helper), "GIT_TERMINAL_PROMPT": "0", "TOOLGATE_GIT_TOKEN": token}
        if "GIT_USER" in secrets:
            env["TOOLGATE_GIT_USER"] = secrets["GIT_USER"]
        return Injection(
            argv_prefix=["-c", "credential.helper="],
            env=env,
            cleanup=lambda: shutil.rmtree(directory, ignore_errors=True),
            scrub_values=[token] if token else [],
        )


ADAPTERS: dict[str, CredentialAdapter] = {a.name: a for a in (Passthrough(), GitAdapter())}


def register_adapter(adapter: CredentialAdapter) -> None:
    ADAPTERS[adapter.name] = adapter


def get_adapter(name: str) -> CredentialAdapter:
    return ADAPTERS.get(name or "passthrough", ADAPTERS["passthrough"])
