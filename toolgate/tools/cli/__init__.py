"""Credentialed CLIs: registered binaries, keyword allowlist, credential adapters."""

from ._adapters import (
    ADAPTERS,
    CredentialAdapter,
    GitAdapter,
    Injection,
    Passthrough,
    get_adapter,
    register_adapter,
)
from ._binaries import PRESETS, CliBinary, Preset, check_binary, denied_by
from ._keywords import KeywordRule, check_rules, scanned_arguments
from ._run import run_credentialed

__all__ = [
    "ADAPTERS",
    "PRESETS",
    "CliBinary",
    "CredentialAdapter",
    "GitAdapter",
    "Injection",
    "KeywordRule",
    "Passthrough",
    "Preset",
    "check_binary",
    "check_rules",
    "denied_by",
    "get_adapter",
    "register_adapter",
    "run_credentialed",
    "scanned_arguments",
]
