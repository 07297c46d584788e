"""Adversarial corpus rates: scrubber recall / false positives, path containment."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.tools import path_corpus, scrub_corpus  # noqa: E402


def main() -> None:
    s = scrub_corpus.evaluate()
    print(
        f"scrubber corpus: recall {s.caught}/{s.positives} ({s.recall:.1%}), "
        f"false positives {s.false_positives}/{s.negatives} ({s.false_positive_rate:.1%})"
    )
    with tempfile.TemporaryDirectory() as tmp:
        p = path_corpus.evaluate(Path(tmp))
    print(
        f"path corpus: attacks blocked {p.attacks_blocked}/{p.attacks}, "
        f"look-alikes allowed {p.lookalikes_allowed}/{p.lookalikes}"
    )


if __name__ == "__main__":
    main()
