"""Shell deny groups (spec §9): judge a command on a real parse before it runs."""

from ._findings import APPROVAL_GROUP, DENY_GROUPS, UNPARSEABLE, Finding
from ._guard import (
    Approvals,
    ShellGuard,
    Verdict,
    check_command,
    check_deny_groups,
    merge_deny_groups,
)
from ._syntax import ShellSyntaxError

__all__ = [
    "APPROVAL_GROUP",
    "DENY_GROUPS",
    "UNPARSEABLE",
    "Approvals",
    "Finding",
    "ShellGuard",
    "ShellSyntaxError",
    "Verdict",
    "check_command",
    "check_deny_groups",
    "merge_deny_groups",
]
