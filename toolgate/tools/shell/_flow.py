"""What text flows into a shell's stdin, when it can be known without running anything.

``echo <payload> | base64 -d | sh`` runs the decoded payload; to judge it the decoder
has to run here. Only pure, well-known text producers are evaluated (echo, printf,
cat of a here-document, base64/xxd/rev); anything else is unknown.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re

from ._syntax import SimpleCommand

DECODERS = frozenset({"base64", "base32", "xxd", "rev", "openssl"})


def _basename(text: str) -> str:
    return text.rsplit("/", 1)[-1]


def produced_text(command: SimpleCommand | None, depth: int = 0) -> str | None:
    """The stdout of ``command`` if it is a pure function of known text, else None."""
    if command is None or depth > 8 or not command.words:
        return None
    words = command.words
    if any(w.dynamic for w in words):
        return None
    name, args = _basename(words[0].text), [w.text for w in words[1:]]
    stdin = command.stdin_text
    if stdin is None and command.upstream is not None:
        stdin = produced_text(command.upstream, depth + 1)
    if name == "echo":
        flags = [a for a in args if re.fullmatch(r"-[neE]+", a)]
        text = " ".join(args[len(flags) :])
        return _escapes(text) if any("e" in f for f in flags) else text
    if name == "printf" and args:
        return _printf(args[0], args[1:])
    if name == "cat" and not args:
        return stdin
    if stdin is None:
        return None
    if name == "base64" and {"-d", "--decode", "-D"} & set(args):
        return _decode(lambda s: base64.b64decode(s + "=" * (-len(s) % 4)), stdin)
    if name == "base32" and {"-d", "--decode"} & set(args):
        return _decode(base64.b32decode, stdin)
    if name == "xxd" and "-r" in args:
        return _decode(binascii.unhexlify, stdin)
    if name == "rev":
        return "\n".join(line[::-1] for line in stdin.split("\n"))
    if name == "openssl" and "base64" in args and "-d" in args:
        return _decode(base64.b64decode, stdin)
    return None


def _decode(decoder: object, text: str) -> str | None:
    compact = re.sub(r"\s+", "", text)
    try:
        return decoder(compact).decode("utf-8", errors="replace")  # type: ignore[operator,no-any-return]
    except (binascii.Error, ValueError):
        return None


def _escapes(text: str) -> str:
    try:
        return codecs.decode(text, "unicode_escape")
    except UnicodeDecodeError:
        return text


def _printf(fmt: str, args: list[str]) -> str:
    values = iter(args)
    out = re.sub(r"%[-+ #0-9.]*[sdbq]", lambda _m: next(values, ""), fmt)
    return _escapes(out)
