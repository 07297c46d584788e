"""The deny groups (spec §9) and what a rule reports."""

from __future__ import annotations

from dataclasses import dataclass

#: Spec §9 deny-group classes, all denied by default, in the spec's order.
DENY_GROUPS: tuple[str, ...] = (
    "destructive_ops",
    "data_exfiltration",
    "reverse_shell",
    "code_injection",
    "privilege_escalation",
    "dangerous_paths",
    "env_injection",
    "container_escape",
    "crypto_mining",
    "filter_bypass",
    "network_recon",
    "package_install",
    "persistence",
    "process_control",
    "env_dump",
)
APPROVAL_GROUP = "package_install"
"""Denied commands of this group wait for a human instead of being refused outright."""
UNPARSEABLE = "unparseable"
"""Not a group: a command we cannot analyse is refused whatever the toggles say."""


@dataclass(frozen=True, slots=True)
class Finding:
    group: str
    reason: str
    command: str
    """The (sub)command the reason is about, as written."""
