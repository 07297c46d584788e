"""Every error toolgate reports, in one hierarchy.

Two families, kept apart on purpose (STYLE.md §5):

    ToolgateError                 base; carries a stable ``code``
    ├── ToolRefusal               the gate or the tool said no; expected, shown to the
    │   │                         LLM or API client, never retried
    │   ├── ToolNotFound          tool_not_found
    │   ├── ToolNotAllowed        tool_not_allowed
    │   ├── InvalidArguments      invalid_arguments
    │   ├── RateLimited           rate_limited
    │   ├── PathDenied            path_denied
    │   ├── FileTooLarge          file_too_large
    │   ├── BinaryFile            binary_file
    │   ├── NotFound              not_found
    │   ├── EditMismatch          edit_no_match / edit_ambiguous
    │   ├── CommandDenied         command_denied (a shell deny group matched)
    │   ├── ApprovalRequired      approval_required (package installs wait for a human)
    │   ├── ToolTimeout           tool_timeout
    │   └── ToolFailed            tool_failed (the tool raised something unexpected)
    ├── InvalidConfig             a policy list or tool setting an admin wrote is wrong
    │   ├── InvalidSettings       invalid_settings (names the field)
    │   ├── UnknownProfile        unknown_profile
    │   ├── PolicyTooLarge        policy_too_large
    │   └── SecretInSettings      secret_in_settings (use the secrets endpoint)
    └── InfrastructureError       a dependency failed (database, Temporal); retryable

Refusals become ``ToolResult(is_error=True, error_code=...)``; infrastructure errors
raise across the activity boundary so Temporal's retry policy decides.
"""

from __future__ import annotations


class ToolgateError(Exception):
    """Base of every toolgate error; ``code`` is a stable, documented identifier."""

    code: str = "toolgate_error"

    def __init__(
        self, message: str, *, code: str | None = None, details: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}
        """Structured facts for clients (e.g. the deny group), beside the message."""
        if code is not None:
            self.code = code


class ToolRefusal(ToolgateError):
    """The call was refused or failed at the tool level; the caller should read why."""

    code = "tool_refused"


class ToolNotFound(ToolRefusal):
    code = "tool_not_found"


class ToolNotAllowed(ToolRefusal):
    code = "tool_not_allowed"


class InvalidArguments(ToolRefusal):
    code = "invalid_arguments"


class RateLimited(ToolRefusal):
    code = "rate_limited"


class PathDenied(ToolRefusal):
    code = "path_denied"


class FileTooLarge(ToolRefusal):
    code = "file_too_large"


class BinaryFile(ToolRefusal):
    code = "binary_file"


class NotFound(ToolRefusal):
    code = "not_found"


class EditMismatch(ToolRefusal):
    code = "edit_no_match"


class CommandDenied(ToolRefusal):
    code = "command_denied"


class ApprovalRequired(ToolRefusal):
    code = "approval_required"


class ToolTimeout(ToolRefusal):
    code = "tool_timeout"


class ToolFailed(ToolRefusal):
    code = "tool_failed"


class InvalidConfig(ToolgateError):
    """Configuration written by an admin was rejected; nothing was stored."""

    code = "invalid_config"


class InvalidSettings(InvalidConfig):
    code = "invalid_settings"

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field
        """Dotted path of the offending field, e.g. ``exec.timeout_seconds``."""


class UnknownProfile(InvalidConfig):
    code = "unknown_profile"


class PolicyTooLarge(InvalidConfig):
    code = "policy_too_large"


class SecretInSettings(InvalidConfig):
    code = "secret_in_settings"


class InfrastructureError(ToolgateError):
    """A dependency of the pipeline failed; the call may succeed if retried."""

    code = "infrastructure_error"
