"""Tool settings: the 4-tier overlay, typed shapes, the exec timeout rules."""

from __future__ import annotations

import pytest

from toolgate.tools import Scrubber, SettingsLayers, exec_timeout, validate_settings
from toolgate.tools.errors import InvalidSettings, SecretInSettings


def test_most_specific_tier_wins_wholesale() -> None:
    layers = SettingsLayers(
        agent={"exec": {"timeout_seconds": 5}},
        tenant={"web_search": {"provider_order": ["exa"]}, "exec": {"timeout_seconds": 9}},
        platform={"web_search": {"provider_order": ["brave"], "brave": {"max_results": 3}}},
    )
    assert layers.merged("exec") == ({"timeout_seconds": 5}, "agent")
    # Tenant replaces the global entry as a whole: brave.max_results is not merged in.
    assert layers.merged("web_search") == ({"provider_order": ["exa"]}, "tenant")
    assert SettingsLayers(platform={"tts": {"primary": "edge"}}).merged("tts")[1] == "global"
    assert layers.merged("web_fetch") == ({}, "default")


@pytest.mark.parametrize(
    ("value", "expected"),
    [({}, 60), ({"timeout_seconds": 120}, 120), ({"timeout_seconds": 0}, 60),
     ({"timeout_seconds": -5}, 60), ({"timeout_seconds": "abc"}, 60),
     ({"timeout_seconds": 3601}, 3600), ({"timeout_seconds": 10**9}, 3600),
     ({"timeout_seconds": True}, 60), ({"timeout_seconds": 1.5}, 60)],
)  # fmt: skip
def test_exec_timeout_at_run_time_falls_back_or_clamps(value: dict, expected: int) -> None:
    assert exec_timeout(value) == expected


@pytest.mark.parametrize("bad", [0, 3601, "abc", 1.5, None, True])
def test_exec_timeout_is_validated_on_write(bad: object) -> None:
    with pytest.raises(InvalidSettings) as info:
        validate_settings("exec", {"timeout_seconds": bad}, Scrubber())
    assert info.value.field == "exec.timeout_seconds"


def test_spec_shapes_are_accepted() -> None:
    scrubber = Scrubber()
    for tool, value in {
        "web_search": {"provider_order": ["brave", "exa"], "brave": {"enabled": True,
                       "max_results": 5}, "exa": {"enabled": False},
                       "duckduckgo": {"enabled": False}},
        "web_fetch": {"policy": "allow_all", "allowed_domains": ["github.com", "*.example.com"],
                      "blocked_domains": ["malicious.com"]},
        "tts": {"primary": "elevenlabs", "default_voice_id": "pMsXgVXv3BLzUgSXRplE",
                "default_model": "eleven_flash_v2_5"},
        "document_parser": {"local_first": False, "max_pages": 200, "timeout_sec": 30,
                            "min_text_len": 16},
        "exec": {"timeout_seconds": 3600},
        "read_file": {"anything": "goes for tools without a typed shape"},
    }.items():  # fmt: skip
        assert validate_settings(tool, value, scrubber) == value


@pytest.mark.parametrize(
    ("tool", "value", "field"),
    [("web_search", {"brave": {"max_results": "five"}}, "web_search.brave.max_results"),
     ("web_search", {"bing": {"enabled": True}}, "web_search.bing"),
     ("web_fetch", {"policy": "maybe"}, "web_fetch.policy"),
     ("tts", {"primary": "shouting"}, "tts.primary"),
     ("document_parser", {"max_pages": 0}, "document_parser.max_pages")],
)  # fmt: skip
def test_malformed_settings_name_the_field(tool: str, value: dict, field: str) -> None:
    with pytest.raises(InvalidSettings) as info:
        validate_settings(tool, value, Scrubber())
    assert info.value.field == field and field in info.value.message


def test_settings_must_be_an_object() -> None:
    with pytest.raises(InvalidSettings, match="must be a JSON object"):
        validate_settings("exec", [1, 2], Scrubber())


@pytest.mark.parametrize(
    "value",
    [{"api_key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
     {"brave": {"token": "tok_live_1234567890abcdef"}},
     {"provider_order": ["sk-proj-abcdefghijklmnopqrstuvwxyz123456"]},
     {"password": "hunter2hunter2"}],
)  # fmt: skip
def test_credentials_in_settings_are_refused_with_a_pointer_to_secrets(value: dict) -> None:
    with pytest.raises(SecretInSettings, match=r"PUT /v1/secrets/\{name\}"):
        validate_settings("web_search_custom", value, Scrubber())
