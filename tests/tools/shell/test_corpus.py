"""Every attack of the corpus, under every evasion, is refused; every look-alike runs."""

from __future__ import annotations

from toolgate.tools.shell import APPROVAL_GROUP, check_command

from .corpus import measure


def refused(command: str) -> bool:
    verdict = check_command(command)
    return not verdict.allowed


def test_the_corpus_blocks_every_attack_and_no_lookalike() -> None:
    rates = measure(refused)
    total = sum(t for _, t in rates.blocked.values())
    assert total >= 900, total
    assert rates.missed == [], f"{len(rates.missed)} attacks got through: {rates.missed[:20]}"
    assert rates.lookalikes_total >= 250
    assert rates.lookalikes_blocked == [], rates.lookalikes_blocked[:20]


def test_package_installs_ask_for_approval_instead_of_a_flat_refusal() -> None:
    verdict = check_command("pip install requests")
    assert (verdict.allowed, verdict.group, verdict.needs_approval) == (
        False, APPROVAL_GROUP, True)  # fmt: skip
    mixed = check_command("pip install requests && rm -rf /")
    assert (mixed.group, mixed.needs_approval) == ("destructive_ops", False)
