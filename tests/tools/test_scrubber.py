from __future__ import annotations

import threading

import pytest

from toolgate.tools import REDACTED, Scrubber

from .scrub_corpus import evaluate


def test_corpus_every_credential_is_removed_and_no_lookalike_is_touched() -> None:
    report = evaluate()
    assert report.positives >= 150 and report.negatives >= 90
    assert report.missed == [], "credentials left in output"
    assert report.wrongly_changed == [], "harmless lines were changed"


def test_key_value_keeps_the_key_so_the_llm_knows_what_was_hidden() -> None:
    out = Scrubber().scrub("DB_PASSWORD=correct-horse-battery")
    assert out == f"DB_PASSWORD={REDACTED}"


def test_connection_uri_keeps_user_and_host() -> None:
    out = Scrubber().scrub("postgres://app:s3cr3t-pass@db.internal:5432/app")
    assert out == f"postgres://app:{REDACTED}@db.internal:5432/app"


def test_multiline_private_key_is_removed_whole() -> None:
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAbCd\n-----END RSA PRIVATE KEY-----"
    out = Scrubber().scrub(f"before\n{key}\nafter")
    assert out == f"before\n{REDACTED}\nafter"


def test_dynamic_values_registered_at_runtime() -> None:
    scrubber = Scrubber()
    assert scrubber.scrub("deploy to 10.20.30.40") == "deploy to 10.20.30.40"
    scrubber.register("10.20.30.40")
    assert scrubber.scrub("deploy to 10.20.30.40") == f"deploy to {REDACTED}"


def test_longer_dynamic_value_wins_over_a_value_it_contains() -> None:
    scrubber = Scrubber(["abcd", "abcdef-ghij"])
    assert scrubber.scrub("x abcdef-ghij y") == f"x {REDACTED} y"


def test_values_injected_for_one_call_are_scrubbed_for_that_call_only() -> None:
    scrubber = Scrubber()
    assert scrubber.scrub("v=plainword1", ["plainword1"]) == f"v={REDACTED}"
    assert scrubber.scrub("v=plainword1") == "v=plainword1"


def test_too_short_dynamic_value_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 4 characters"):
        Scrubber().register("ab")


def test_registration_from_many_threads_is_safe_while_scrubbing() -> None:
    scrubber = Scrubber()
    values = [f"secret-value-{i:04d}" for i in range(200)]
    text = " ".join(values)

    def register(chunk: list[str]) -> None:
        for value in chunk:
            scrubber.register(value)
            scrubber.scrub(text)

    threads = [threading.Thread(target=register, args=(values[i::8],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(scrubber.dynamic_values) == 200
    assert "secret-value" not in scrubber.scrub(text)
