"""The credentialed CLI keyword allowlist (spec §5, ``commandKeywordAllowlist``).

A rule lets listed keywords appear inside chosen *content* arguments of chosen
subcommands without tripping ``deny_args``: ``gh issue create --body "secret
rotation notes"`` passes, ``gh secret set TOKEN`` does not (its subcommand is not the
rule's). ``args`` are flags whose value is content (``--body X`` or ``--body=X``);
``argPositions`` are 0-based indexes after the matched subcommand. Only arguments are
scanned, never files they name (``--body-file``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidSettings

MASK = "\u2063"  # invisible separator: a masked keyword matches no deny pattern


@dataclass(frozen=True, slots=True)
class KeywordRule:
    id: str
    command: str
    subcommands: tuple[str, ...]
    args: tuple[str, ...]
    arg_positions: tuple[int, ...]
    keywords: tuple[str, ...]
    reason: str = ""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KeywordRule:
        return cls(
            id=str(data["id"]),
            command=str(data["command"]),
            subcommands=tuple(data.get("subcommands") or ()),
            args=tuple(data.get("args") or ()),
            arg_positions=tuple(int(p) for p in data.get("argPositions") or ()),
            keywords=tuple(data.get("keywords") or ()),
            reason=str(data.get("reason") or ""),
        )


def _bad(where: str, what: str) -> InvalidSettings:
    return InvalidSettings(f"{where} {what}", field=where)


def check_rules(value: object) -> list[KeywordRule]:
    """Validate a stored allowlist on write."""
    if not isinstance(value, list):
        raise InvalidSettings("the allowlist must be a JSON array of rules", field="rules")
    rules = []
    for i, item in enumerate(value):
        where = f"rules[{i}]"
        if not isinstance(item, dict):
            raise InvalidSettings(f"{where} must be an object", field=where)
        for key in ("id", "command"):
            if not isinstance(item.get(key), str) or not item[key]:
                raise InvalidSettings(
                    f"{where}.{key} must be a non-empty string", field=f"{where}.{key}"
                )
        for key in ("subcommands", "args", "keywords"):
            entries = item.get(key, [])
            if not isinstance(entries, list) or not all(isinstance(e, str) and e for e in entries):
                raise InvalidSettings(
                    f"{where}.{key} must be a list of strings", field=f"{where}.{key}"
                )
        positions = item.get("argPositions", [])
        if not isinstance(positions, list) or not all(
            isinstance(p, int) and p >= 0 for p in positions
        ):
            raise InvalidSettings(f"{where}.argPositions must be non-negative integers",
                                  field=f"{where}.argPositions")  # fmt: skip
        if not item.get("keywords"):
            raise _bad(f"{where}.keywords", "must name at least one keyword")
        rules.append(KeywordRule.from_json(item))
    return rules


def _subcommand_length(rule: KeywordRule, args: list[str]) -> int | None:
    for sub in rule.subcommands:
        words = sub.split()
        if args[: len(words)] == words:
            return len(words)
    return None


def _mask(text: str, keywords: Iterable[str]) -> str:
    for keyword in keywords:
        text = re.sub(rf"\b{re.escape(keyword)}\b", lambda m: MASK.join(m.group(0)), text,
                      flags=re.IGNORECASE)  # fmt: skip
    return text


def scanned_arguments(program: str, args: list[str], rules: Iterable[KeywordRule]) -> list[str]:
    """``args`` with allowed keywords masked in the content arguments rules name."""
    out = list(args)
    for rule in rules:
        if rule.command != program:
            continue
        start = _subcommand_length(rule, args)
        if start is None:
            continue
        for i in range(start, len(out)):
            position = i - start
            flag_value = i > 0 and out[i - 1] in rule.args and i - 1 >= start
            inline = next((f for f in rule.args if out[i].startswith(f + "=")), None)
            if position in rule.arg_positions or flag_value:
                out[i] = _mask(out[i], rule.keywords)
            elif inline is not None:
                out[i] = inline + "=" + _mask(out[i][len(inline) + 1 :], rule.keywords)
    return out
