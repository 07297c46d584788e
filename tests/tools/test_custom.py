"""Custom tool rendering and the two-phase registry, without storage."""

from __future__ import annotations

import shlex

from toolgate.tools import (
    AgentConfig,
    CustomToolDef,
    PolicyInputs,
    SettingsLayers,
    ToolPolicy,
    render,
)
from toolgate.tools.builtin import builtin_registry


def _def(name: str = "greet", command: str = "echo {{.who}}") -> CustomToolDef:
    schema = {"type": "object", "properties": {"who": {"type": "string"}}}
    return CustomToolDef(id="1", tenant_id="acme", name=name, description="d",
                         parameters=schema, command=command)  # fmt: skip


def test_placeholders_become_one_quoted_word_each() -> None:
    for value in ["plain", "a b", "x'; rm -rf / #", "$(id)", "`id`", "a\nb", "", "--help"]:
        rendered = render("echo {{.v}} {{ .v }}", {"v": value})
        assert shlex.split(rendered) == ["echo", value, value]
    assert render("n={{.n}} ok={{.ok}} o={{.o}}", {"n": 3, "ok": True, "o": {"a": 1}}) == (
        "n=3 ok=true o='{\"a\": 1}'"
    )


def test_custom_tools_are_overlaid_on_a_clone_never_on_the_shared_registry() -> None:
    shared = builtin_registry()
    before = shared.names()
    config = AgentConfig(
        PolicyInputs("acme", "a1", ToolPolicy()), SettingsLayers(), custom_tools=(_def(),)
    )
    overlay = config.registry(shared)
    assert "greet" in overlay and "greet" not in shared and shared.names() == before
    assert config.registry(shared) is overlay  # built once per config object
    assert (
        AgentConfig(PolicyInputs("acme", "a1", ToolPolicy()), SettingsLayers()).registry(shared)
        is shared
    )
    clash = AgentConfig(PolicyInputs("acme", "a1", ToolPolicy()), SettingsLayers(),
                        custom_tools=(_def("read_file"),))  # fmt: skip
    assert clash.registry(shared).get("read_file") is shared.get("read_file")
