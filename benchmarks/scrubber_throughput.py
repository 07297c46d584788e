"""Scrubber throughput on 1 MB of mixed tool output (listings, logs, JSON, a few keys)."""

from __future__ import annotations

import random
import time

from toolgate.tools import Scrubber

LINES = [
    "drwxr-xr-x  5 root root 4096 Dec  1 02:48 src",
    "2026-12-01T02:48:52Z INFO request handled in 12ms path=/v1/tools status=200",
    '{"id": 1234, "name": "widget", "tags": ["a", "b"], "price": 12.5}',
    "commit 3f2b8c1e9a4d4c2e8f1a2b3c4d5e6f7081929394",
    "    def handle(self, request: Request) -> Response:",
    "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    "DATABASE_URL=postgres://app:s3cretpassw0rd@db.internal:5432/app",
    "The quick brown fox jumps over the lazy dog; nothing secret here at all.",
]


def corpus(size: int = 1_048_576) -> str:
    rng = random.Random(7)
    weights = [20, 20, 15, 5, 20, 1, 1, 18]
    out: list[str] = []
    total = 0
    while total < size:
        line = rng.choices(LINES, weights)[0]
        out.append(line)
        total += len(line) + 1
    return "\n".join(out)[:size]


def main() -> dict[str, float]:
    text = corpus()
    scrubber = Scrubber(["10.20.30.40", "deploy-token-xyz"])
    scrubber.scrub(text)
    runs = 5
    start = time.perf_counter()
    for _ in range(runs):
        scrubber.scrub(text)
    seconds = (time.perf_counter() - start) / runs
    return {"mb_per_s": len(text.encode()) / 1_048_576 / seconds}


if __name__ == "__main__":
    print(f"scrubber: {main()['mb_per_s']:.1f} MB/s on 1 MB of mixed tool output")
