"""Credentialed binaries (spec §4 credentialed CLI mode, §5 secure_cli_binaries).

A tenant registers a CLI (``gh``, ``aws``, ...) with encrypted environment variables;
an agent with an explicit grant may run it, straight from argv (no shell), with the
variables injected into that child only. ``deny_args`` regexes refuse argument
patterns (e.g. ``gh auth token`` would print the token).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import InvalidSettings


@dataclass(frozen=True, slots=True)
class Preset:
    deny_args: tuple[str, ...]
    timeout_seconds: int
    tips: str
    adapter: str = "passthrough"


PRESETS: dict[str, Preset] = {
    "gh": Preset(
        (r"auth\s+(token|login|logout|refresh|setup-git|status\s+.*--show-token)", r"ssh-key",
         r"gpg-key", r"secret\s+(set|delete|list|remove)", r"repo\s+delete",
         r"api\s+.*(-X|--method)\s*DELETE"),
        30, "GitHub CLI. Available: gh api, gh repo, gh issue, gh pr, gh run, gh release.",
    ),
    "gcloud": Preset(
        (r"auth\s+(print-access-token|print-identity-token|application-default\s+print)",
         r"iam\s+service-accounts\s+keys\s+create", r"projects\s+delete",
         r"config\s+set\s+account", r"secrets\s+versions\s+access"),
        60, "Google Cloud CLI. Read-mostly: gcloud compute, gcloud run, gcloud logging.",
    ),
    "aws": Preset(
        (r"configure\s+(get|export-credentials|list)", r"sts\s+get-session-token",
         r"iam\s+(create-access-key|delete-\S+|attach-\S+-policy)",
         r"secretsmanager\s+get-secret-value", r"ssm\s+get-parameters?\s+.*--with-decryption",
         r"s3\s+rb\b", r"ec2\s+terminate-instances"),
        60, "AWS CLI. Read-mostly: aws s3 ls, aws ec2 describe-*, aws logs.",
    ),
    "kubectl": Preset(
        (r"\bget\s+secrets?\b", r"\bdescribe\s+secrets?\b", r"config\s+view\s+.*--raw",
         r"\bdelete\s+(namespace|ns|node)\b", r"\bexec\b", r"\bcp\b", r"auth\s+can-i\s+--list"),
        60, "kubectl. Read-mostly: get, describe, logs, rollout status.",
    ),
    "terraform": Preset(
        (r"\bdestroy\b", r"apply\s+.*-auto-approve", r"state\s+(rm|push|mv)",
         r"output\s+.*-raw", r"force-unlock"),
        300, "Terraform. plan, validate, fmt, show; apply needs a human.",
    ),
    "gws": Preset(
        (r"auth\s+(export|print)", r"users\s+delete", r"admin\s+.*delete"),
        60, "Google Workspace CLI. Read-mostly: gws drive list, gws gmail list.",
    ),
    "git": Preset((r"config\s+.*credential", r"push\s+.*--force\b", r"push\s+.*\s-f\b"),
                  120, "git with an access token for https remotes.", adapter="git"),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class CliBinary:
    id: str
    tenant_id: str
    binary_name: str
    env: Mapping[str, str] = field(default_factory=dict)
    """Decrypted values (worker only)."""
    deny_args: tuple[str, ...] = ()
    timeout_seconds: int = 60
    tips: str = ""
    adapter: str = "passthrough"
    enabled: bool = True
    granted_agents: frozenset[str] = frozenset()


BINARY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_binary(name: str, deny_args: tuple[str, ...], timeout_seconds: int) -> None:
    """Refuse on write what would break at call time."""
    if not BINARY_NAME.match(name):
        raise InvalidSettings(f"binary_name {name!r} is not a program name", field="binary_name")
    for i, pattern in enumerate(deny_args):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise InvalidSettings(
                f"deny_args[{i}] {pattern!r} does not compile: {exc}", field=f"deny_args[{i}]"
            ) from None
    if not 1 <= timeout_seconds <= 3600:
        raise InvalidSettings("timeout_seconds must be 1..3600", field="timeout_seconds")


def denied_by(binary: CliBinary, scanned: list[str]) -> str | None:
    """The first deny_args pattern that matches the arguments (argv after the name)."""
    text = " ".join(scanned)
    for pattern in binary.deny_args:
        if re.search(pattern, text, flags=re.IGNORECASE):
            return pattern
    return None
