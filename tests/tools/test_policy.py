"""The layered policy pipeline of spec §6, and explain, without storage."""

from __future__ import annotations

import pytest

from toolgate.tools import (
    PROFILES,
    Capability,
    GroupCatalog,
    PolicyInputs,
    PolicyRequest,
    Registry,
    ToolPolicy,
    check_policy_shape,
    explain,
    resolve,
)
from toolgate.tools.errors import PolicyTooLarge, UnknownProfile

from ..sample_tools import Stub

SPEC_TOOLS = [
    "read_file", "write_file", "list_files", "edit", "send_file", "exec", "web_search",
    "web_fetch", "memory_search", "memory_get", "sessions_list", "sessions_history",
    "sessions_send", "spawn", "session_status", "cron", "message", "create_forum_topic",
    "list_group_members", "team_tasks", "read_image", "create_image", "skill_search",
    "delegate", "tts",
]  # fmt: skip


def _registry(*extra: Stub) -> Registry:
    registry = Registry()
    for name in SPEC_TOOLS:
        registry.register(Stub(name))
    for tool in extra:
        registry.register(tool)
    return registry


@pytest.fixture
def registry() -> Registry:
    return _registry(
        Stub("mcp_gh_issues", capability=Capability.MCP_BRIDGED, groups={"mcp:gh"}),
        Stub("mcp_jira_find", capability=Capability.MCP_BRIDGED, groups={"mcp:jira"}),
    )


NONE = ToolPolicy()


def _inputs(
    agent: ToolPolicy = NONE, tenant: ToolPolicy = NONE, platform: ToolPolicy = NONE
) -> PolicyInputs:
    return PolicyInputs("acme", "a1", agent, tenant, platform)


def test_nothing_configured_means_the_full_profile(registry: Registry) -> None:
    assert resolve(_inputs(), registry).tools == set(registry.names())


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("minimal", {"session_status"}),
        (
            "messaging",
            {"message", "create_forum_topic", "list_group_members", "web_search", "web_fetch",
             "sessions_list", "sessions_history", "session_status", "read_image", "skill_search"},
        ),
        (
            "coding",
            {"read_file", "write_file", "list_files", "edit", "send_file", "exec",
             "sessions_list", "sessions_history", "sessions_send", "spawn", "session_status",
             "memory_search", "memory_get", "web_search", "web_fetch", "read_image",
             "create_image", "skill_search"},
        ),
    ],
)  # fmt: skip
def test_profiles_are_the_spec_table(registry: Registry, profile: str, expected: set) -> None:
    assert resolve(_inputs(ToolPolicy(profile=profile)), registry).tools == expected


def test_coding_with_exec_denied_and_explain_says_why(registry: Registry) -> None:
    resolution = resolve(_inputs(ToolPolicy(profile="coding", deny=("exec",))), registry)
    assert "exec" not in resolution.tools and "read_file" in resolution.tools
    gone = explain(resolution, registry, "exec")
    assert (gone.reaches_llm, gone.decided_by) == (False, "agent_deny")
    assert gone.reason == "removed by agent deny list"
    kept = explain(resolution, registry, "read_file")
    assert (kept.reaches_llm, kept.decided_by) == (True, "profile")
    never = explain(resolution, registry, "team_tasks")
    assert (never.reaches_llm, never.decided_by) == (False, "profile")
    assert explain(resolution, registry, "telepathy").decided_by == "registry"


def test_agent_profile_wins_over_tenant_and_global(registry: Registry) -> None:
    inputs = _inputs(
        ToolPolicy(profile="minimal"), ToolPolicy(profile="coding"), ToolPolicy(profile="full")
    )
    assert resolve(inputs, registry).tools == {"session_status"}
    assert resolve(_inputs(tenant=ToolPolicy(profile="minimal")), registry).tools == {
        "session_status"
    }


def test_provider_profile_overrides_only_for_that_provider(registry: Registry) -> None:
    platform = ToolPolicy(provider_profiles={"tiny-llm": "minimal"})
    inputs = _inputs(ToolPolicy(profile="coding"), platform=platform)
    small = resolve(inputs, registry, PolicyRequest(provider="tiny-llm"))
    assert small.tools == {"session_status"}
    assert explain(small, registry, "read_file").decided_by == "provider_profile"
    assert "read_file" in resolve(inputs, registry, PolicyRequest(provider="openai")).tools


def test_allow_lists_intersect_in_order(registry: Registry) -> None:
    inputs = _inputs(
        agent=ToolPolicy(allow=("read_file", "write_file", "exec"),
                         provider_allow={"openai": ("read_file", "exec")}),
        tenant=ToolPolicy(allow=("group:fs", "exec", "web_search")),
        platform=ToolPolicy(allow=("*",), provider_allow={"openai": ("group:fs",)}),
    )  # fmt: skip
    assert resolve(inputs, registry).tools == {"read_file", "write_file", "exec"}
    openai = resolve(inputs, registry, PolicyRequest(provider="openai"))
    assert openai.tools == {"read_file"}
    assert explain(openai, registry, "exec").decided_by == "provider_allow"
    assert explain(openai, registry, "write_file").decided_by == "agent_provider_allow"


def test_group_allow_applies_to_that_chat_only(registry: Registry) -> None:
    tenant = ToolPolicy(group_allow={"telegram:-100": ("group:web",)})
    inputs = _inputs(tenant=tenant)
    in_chat = resolve(inputs, registry, PolicyRequest(channel="telegram", chat_id="-100"))
    assert in_chat.tools == {"web_search", "web_fetch"}
    elsewhere = resolve(inputs, registry, PolicyRequest(channel="telegram", chat_id="-200"))
    assert "exec" in elsewhere.tools


def test_deny_applies_global_then_tenant_then_agent(registry: Registry) -> None:
    inputs = _inputs(
        agent=ToolPolicy(deny=("cron",)),
        tenant=ToolPolicy(deny=("group:messaging",)),
        platform=ToolPolicy(deny=("exec",)),
    )
    resolution = resolve(inputs, registry)
    assert not {"exec", "message", "cron"} & resolution.tools
    assert explain(resolution, registry, "exec").decided_by == "global_deny"
    assert explain(resolution, registry, "message").decided_by == "tenant_deny"
    assert explain(resolution, registry, "cron").decided_by == "agent_deny"


def test_also_allow_adds_after_the_profile_and_deny(registry: Registry) -> None:
    inputs = _inputs(
        ToolPolicy(profile="minimal", also_allow=("team_tasks", "exec")),
        tenant=ToolPolicy(deny=("exec",)),
    )
    resolution = resolve(inputs, registry)
    assert resolution.tools == {"session_status", "team_tasks", "exec"}
    assert explain(resolution, registry, "team_tasks").decided_by == "also_allow"


def test_subagents_lose_the_subagent_deny_and_leaves_cannot_spawn(registry: Registry) -> None:
    inputs = _inputs(tenant=ToolPolicy(subagent_deny=("cron",)))
    top = resolve(inputs, registry)
    assert {"cron", "spawn", "delegate"} <= top.tools
    child = resolve(inputs, registry, PolicyRequest(subagent_depth=1))
    assert not {"cron", "spawn", "delegate"} & child.tools
    assert explain(child, registry, "spawn").decided_by == "leaf_deny"
    deeper = _inputs(tenant=ToolPolicy(subagent_deny=("cron",), max_spawn_depth=2))
    middle = resolve(deeper, registry, PolicyRequest(subagent_depth=1))
    assert "spawn" in middle.tools and "cron" not in middle.tools


def test_request_allow_is_the_last_word(registry: Registry) -> None:
    inputs = _inputs(ToolPolicy(also_allow=("exec",)))
    request = PolicyRequest(request_allow=frozenset({"read_file", "group:web"}))
    resolution = resolve(inputs, registry, request)
    assert resolution.tools == {"read_file", "web_search", "web_fetch"}
    assert explain(resolution, registry, "exec").decided_by == "request_allow"


def test_builtin_and_mcp_groups(registry: Registry) -> None:
    catalog = GroupCatalog(registry)
    assert catalog.expand(["group:mcp"]).names == {"mcp_gh_issues", "mcp_jira_find"}
    assert catalog.expand(["group:mcp:gh"]).names == {"mcp_gh_issues"}
    assert catalog.expand(["group:builtin"]).names == set(SPEC_TOOLS)
    unconnected = catalog.expand(["group:mcp:not-connected-yet"])
    assert unconnected.names == set() and unconnected.warnings == []


def test_every_spec_group_expands(registry: Registry) -> None:
    catalog = GroupCatalog(registry)
    for group in ("fs", "runtime", "web", "memory", "sessions", "automation", "messaging", "team"):
        expansion = catalog.expand([f"group:{group}"])
        assert expansion.names and not expansion.warnings, group


def test_unknown_names_are_warnings_never_errors(registry: Registry) -> None:
    inputs = _inputs(ToolPolicy(allow=("read_file", "telepathy", "group:nope")))
    resolution = resolve(inputs, registry)
    assert resolution.tools == {"read_file"}
    assert resolution.warnings == (
        "agent allow list: 'telepathy' names no registered tool",
        "agent allow list: 'group:nope' names no known group",
    )


def test_defined_groups_nest_and_loops_are_reported_not_followed(registry: Registry) -> None:
    tenant = ToolPolicy(
        groups={"a": ("read_file", "group:b"), "b": ("write_file", "group:a"), "c": ("group:c",)}
    )
    resolution = resolve(_inputs(ToolPolicy(allow=("group:a", "group:c")), tenant), registry)
    assert resolution.tools == {"read_file", "write_file"}
    assert any("group loop ignored: group:a → group:b → group:a" in w for w in resolution.warnings)
    assert any("group:c → group:c" in w for w in resolution.warnings)


def test_a_huge_list_resolves_and_is_refused_on_write(registry: Registry) -> None:
    huge = tuple(f"tool_{i}" for i in range(5000))
    resolution = resolve(_inputs(ToolPolicy(allow=(*huge, "read_file"))), registry)
    assert resolution.tools == {"read_file"} and len(resolution.warnings) == 5000
    with pytest.raises(PolicyTooLarge, match="5001 entries; at most 1000"):
        check_policy_shape(ToolPolicy(allow=(*huge, "read_file")), "tool_policy")


def test_unknown_profile_is_refused_on_write_and_fails_closed_at_run_time(registry) -> None:
    with pytest.raises(UnknownProfile, match="use one of full, coding, messaging, minimal"):
        check_policy_shape(ToolPolicy(profile="god-mode"), "tool_policy")
    with pytest.raises(UnknownProfile):
        check_policy_shape(ToolPolicy(provider_profiles={"x": "everything"}), "tool_policy")
    resolution = resolve(_inputs(ToolPolicy(profile="god-mode")), registry)
    assert resolution.tools == set() and "unknown profile" in resolution.warnings[0]
    assert set(PROFILES) == {"full", "coding", "messaging", "minimal"}


def test_stored_json_round_trips() -> None:
    data = {"profile": "coding", "deny": ["exec"], "provider_allow": {"openai": ["read_file"]}}
    policy = ToolPolicy.from_json(data)
    assert policy.deny == ("exec",) and policy.provider_allow == {"openai": ("read_file",)}
    assert policy.allow is None and ToolPolicy.from_json(None) == ToolPolicy()


def test_a_config_resolves_once_per_request_and_the_memo_is_bounded(registry: Registry) -> None:
    from toolgate.tools import AgentConfig, SettingsLayers
    from toolgate.tools._ports import MAX_MEMOISED

    config = AgentConfig(_inputs(ToolPolicy(profile="coding")), SettingsLayers())
    first = config.resolution(registry, PolicyRequest())
    assert config.resolution(registry, PolicyRequest()) is first
    narrowed = config.resolution(registry, PolicyRequest(request_allow=frozenset({"exec"})))
    assert narrowed.tools == {"exec"}
    for i in range(MAX_MEMOISED * 3):
        config.resolution(registry, PolicyRequest(chat_id=str(i)))
    assert len(config._resolved) <= MAX_MEMOISED
