"""Credential scrubbing of tool output (spec §8).

Static patterns catch well-known credential shapes; dynamic values are secrets known
at run time (deployment tokens, server addresses, values injected into one call).
Token-shaped secrets are replaced whole; for ``key=value`` assignments, URIs with a
password and ``Authorization`` headers only the secret part is replaced, so the LLM
still sees *what* was hidden.

The exact patterns are not documented outside this module (defense in depth); the
corpus under tests/tools/corpora holds what they must and must not match.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable

REDACTED = "[REDACTED]"

# Whole-token credential shapes, each with the literal hints one of which must occur
# in the text for the pattern to be tried at all (a fast ``in`` test, so a 1 MB
# output pays only for the shapes it could contain). Each is anchored on a vendor
# prefix or a structure rare in ordinary text, so harmless look-alikes do not match.
_PRIVATE_KEY = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_TOKEN_RULES: tuple[tuple[tuple[str, ...] | None, str], ...] = (
    (
        ("PRIVATE KEY",),
        _PRIVATE_KEY + r"[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    ),
    (("PRIVATE KEY",), _PRIVATE_KEY + r"[\s\S]*"),  # a truncated key: hide the rest
    (("sk-ant-",), r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{20,}"),
    (("sk-",), r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"),
    (
        ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA"),
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b",
    ),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    (("github_pat_",), r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"),
    (("glpat-",), r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    (("xox",), r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b"),
    (("AIza",), r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    (("_live_", "_test_"), r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}\b"),
    (("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b"),
    (("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    (("pypi-",), r"\bpypi-AgE[A-Za-z0-9_\-]{50,}\b"),
    (("SG.",), r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),
    (("eyJ",), r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    # Long hex: API keys and secrets often are bare hex. Digests named as such
    # (sha256:..., "commit <sha>") are kept: they identify, they do not authorise.
    (
        None,
        r"(?<![A-Za-z0-9:@/_\-])(?<!commit )(?<!Merge: )"
        r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{32,}(?![A-Za-z0-9_\-])",
    ),
    (
        None,
        r"(?<![A-Za-z0-9:@/_\-])(?=[0-9A-F]*[A-F])(?=[0-9A-F]*[0-9])[0-9A-F]{32,}(?![A-Za-z0-9_\-])",
    ),
)

# A key that names a secret; glued prefixes (PGPASSWORD) need no anchor, and a short
# suffix (secret_key, password.txt) still belongs to the key.
_SECRET_KEY = (
    r"(?:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|private[_\-]?key|client[_\-]?secret|auth[_\-]?token|credentials?|session[_\-]?key)"
    r"[\w.\-]{0,40}?"
)

# Keep-the-key, hide-the-value shapes: group "secret" is what gets replaced. Hints are
# looked for in the lower-cased text.
_VALUE_RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    # scheme://user:password@host — any URI scheme, password part only.
    (("://",), r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]*:(?P<secret>[^\s@/]+)@"),
    # Authorization: Bearer/Basic/Token <credential>
    (
        ("bearer", "basic", "token"),
        r"(?i:\b(?:bearer|basic|token)\s+)(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)",
    ),
    # KEY=value, "key": "value", key: value. The value must look like a secret: not a
    # number, not a placeholder, at least 6 characters; a value followed by "(" or "["
    # is code (get_secret(...), environ[...]), and "::" is not an assignment.
    (
        ("pass", "pwd", "secret", "token", "key", "credential"),
        r"(?i:" + _SECRET_KEY + r")[\"']?\s*(?:=>|=|:(?!:))\s*[\"']?"
        r"(?!(?:\$\{|\$\(|<|\*{3}|\[REDACTED\]|null\b|none\b|true\b|false\b|undefined\b"
        r"|\d+(?:\.\d+)?(?![^\s\"',;}])))"
        r"(?P<secret>[^\s\"',;}{(\[]{6,})(?=[\s\"',;}]|$)",
    ),
)


@functools.lru_cache(maxsize=256)
def _combined(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


@functools.lru_cache(maxsize=16)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


class Scrubber:
    """Replaces credentials in text with ``[REDACTED]``; safe to share across threads.

    Dynamic values are kept in a copy-on-write tuple, so ``scrub`` never takes the
    lock and registration from another thread is seen atomically.
    """

    def __init__(self, dynamic_values: Iterable[str] = (), *, min_dynamic_length: int = 4) -> None:
        self._min_dynamic_length = min_dynamic_length
        self._lock = threading.Lock()
        self._dynamic: tuple[str, ...] = ()
        for value in dynamic_values:
            self.register(value)

    def register(self, value: str) -> None:
        """Add a value to scrub from now on; values too short to be secrets are refused."""
        value = value.strip()
        if len(value) < self._min_dynamic_length:
            raise ValueError(
                f"a dynamic scrub value needs at least {self._min_dynamic_length} characters"
            )
        with self._lock:
            if value not in self._dynamic:
                # Longest first, so a value that contains another is replaced whole.
                self._dynamic = tuple(sorted((*self._dynamic, value), key=len, reverse=True))

    @property
    def dynamic_values(self) -> tuple[str, ...]:
        return self._dynamic

    def scrub(self, text: str, extra_values: Iterable[str] = ()) -> str:
        """Return ``text`` with every credential replaced by ``[REDACTED]``."""
        if not text:
            return text
        for value in _longest_first(self._dynamic, extra_values):
            if value in text:
                text = text.replace(value, REDACTED)
        tokens = tuple(
            pattern for hints, pattern in _TOKEN_RULES if hints is None or _any_in(hints, text)
        )
        text = _combined(tokens).sub(REDACTED, text)
        lowered = text.lower()
        for hints, pattern in _VALUE_RULES:
            if _any_in(hints, lowered):
                text = _compiled(pattern).sub(_redact_secret_group, text)
        return text


def _any_in(hints: tuple[str, ...], text: str) -> bool:
    return any(hint in text for hint in hints)


def _longest_first(base: tuple[str, ...], extra: Iterable[str]) -> tuple[str, ...]:
    extra_values = tuple(v for v in extra if len(v) >= 4)
    if not extra_values:
        return base
    return tuple(sorted({*base, *extra_values}, key=len, reverse=True))


def _redact_secret_group(match: re.Match[str]) -> str:
    start, end = match.span("secret")
    whole_start = match.start()
    text = match.group(0)
    return text[: start - whole_start] + REDACTED + text[end - whole_start :]
