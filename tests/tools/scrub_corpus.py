"""Loads the scrubber corpora and measures recall and false-positive rate.

Shared by tests/tools/test_scrubber.py (which asserts on the rates) and
benchmarks/scrub_corpus.py (which prints them for the README).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from toolgate.tools import Scrubber

CORPORA = Path(__file__).parent / "corpora"
_MARK = re.compile(r"«(.*?)»", re.S)


def _lines(name: str) -> list[str]:
    text = (CORPORA / name).read_text(encoding="utf-8")
    return [
        line.replace("\\n", "\n")
        for line in text.splitlines()
        if line.strip() and not line.startswith("#")
    ]


@dataclass
class CorpusReport:
    positives: int = 0
    caught: int = 0
    negatives: int = 0
    false_positives: int = 0
    missed: list[str] = field(default_factory=list)
    wrongly_changed: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.caught / self.positives

    @property
    def false_positive_rate(self) -> float:
        return self.false_positives / self.negatives


def evaluate(scrubber: Scrubber | None = None) -> CorpusReport:
    scrubber = scrubber or Scrubber()
    report = CorpusReport()
    for line in _lines("scrub_positive.txt"):
        secrets = _MARK.findall(line)
        text = _MARK.sub(lambda m: m.group(1), line)
        out = scrubber.scrub(text)
        report.positives += 1
        if all(s not in out for s in secrets) and "[REDACTED]" in out:
            report.caught += 1
        else:
            report.missed.append(f"{text!r} -> {out!r}")
    for line in _lines("scrub_negative.txt"):
        report.negatives += 1
        out = scrubber.scrub(line)
        if out != line:
            report.false_positives += 1
            report.wrongly_changed.append(f"{line!r} -> {out!r}")
    return report
