"""The gate's steps, in order, without Temporal."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolgate.tools import REDACTED, RateLimit, Registry, Scrubber, governed_call
from toolgate.tools.builtin import builtin_registry
from toolgate.tools.errors import InfrastructureError

from ..sample_tools import Boom, Counter, Echo, Flaky, Hang
from .memory_ports import MemoryAudit, MemoryPolicies, context, governance


@pytest.fixture
def registry() -> Registry:
    reg = builtin_registry()
    for tool in (Echo(), Boom(), Hang()):
        reg.register(tool)
    return reg


@pytest.fixture
def policies() -> MemoryPolicies:
    p = MemoryPolicies()
    p.allow("acme", "a1", "group:fs", "echo_text", "boom", "hang", "bump_counter", "flaky")
    return p


async def test_unknown_tool_is_refused_and_audited(registry, policies, tmp_path: Path) -> None:
    audit = MemoryAudit()
    result = await governed_call(
        governance(registry, policies, audit), context(tmp_path), "nope", {}
    )
    assert result.is_error and result.error_code == "tool_not_found"
    assert [(e.tool, e.outcome) for e in audit.entries] == [("nope", "refused")]


async def test_tool_outside_the_agents_list_never_runs(registry, tmp_path: Path) -> None:
    policies, audit = MemoryPolicies(), MemoryAudit()
    policies.allow("acme", "a1", "read_file")
    result = await governed_call(
        governance(registry, policies, audit), context(tmp_path), "write_file",
        {"path": "x.txt", "content": "hi"},
    )  # fmt: skip
    assert result.error_code == "tool_not_allowed"
    assert "explain=true" in result.for_llm
    assert not (tmp_path / "acme").exists() or not any((tmp_path / "acme").rglob("x.txt"))


async def test_unknown_agent_is_not_allowed_anything(registry, tmp_path: Path) -> None:
    result = await governed_call(
        governance(registry, MemoryPolicies(), MemoryAudit()), context(tmp_path), "echo_text",
        {"text": "hi"},
    )  # fmt: skip
    assert result.error_code == "tool_not_allowed"


async def test_request_allow_list_narrows_the_agents_list(
    registry, policies, tmp_path: Path
) -> None:
    gov = governance(registry, policies, MemoryAudit())
    ctx = context(tmp_path, request_allow=frozenset({"read_file"}))
    result = await governed_call(gov, ctx, "echo_text", {"text": "hi"})
    assert result.error_code == "tool_not_allowed"


async def test_arguments_failing_the_schema_say_which_and_where(
    registry, policies, tmp_path: Path
) -> None:
    result = await governed_call(
        governance(registry, policies, MemoryAudit()), context(tmp_path), "read_file",
        {"path": 7, "start_line": 0},
    )  # fmt: skip
    assert result.error_code == "invalid_arguments"
    assert "/path" in result.for_llm and "/start_line" in result.for_llm


async def test_non_object_arguments_are_refused(registry, policies, tmp_path: Path) -> None:
    result = await governed_call(
        governance(registry, policies, MemoryAudit()), context(tmp_path), "echo_text", ["x"]
    )
    assert result.error_code == "invalid_arguments"
    assert "JSON object" in result.for_llm


async def test_rate_limit_per_session_key(registry, policies, tmp_path: Path) -> None:
    gov = governance(registry, policies, MemoryAudit(), RateLimit(per_minute=0.001, burst=3))
    ctx = context(tmp_path)
    codes = [
        (await governed_call(gov, ctx, "echo_text", {"text": "x"})).error_code for _ in range(5)
    ]
    assert codes == [None, None, None, "rate_limited", "rate_limited"]
    other = context(tmp_path, session_key="s2")
    assert not (await governed_call(gov, other, "echo_text", {"text": "x"})).is_error


async def test_output_is_scrubbed_on_both_channels_and_in_the_audit(
    registry, policies, tmp_path: Path
) -> None:
    audit = MemoryAudit()
    gov = governance(registry, policies, audit, scrubber=Scrubber(["10.1.2.3"]))
    ctx = context(tmp_path, scrub_values=("injected-value-xyz",))
    text = "key AKIAIOSFODNN7EXAMPLE host 10.1.2.3 and injected-value-xyz"
    result = await governed_call(gov, ctx, "echo_text", {"text": text})
    for channel in (result.for_llm, result.for_user):
        assert "AKIA" not in channel and "10.1.2.3" not in channel
        assert "injected-value-xyz" not in channel and channel.count(REDACTED) == 3
    assert "AKIA" not in str(audit.entries[0].arguments)


async def test_a_tool_that_raises_becomes_an_error_result(
    registry, policies, tmp_path: Path
) -> None:
    result = await governed_call(
        governance(registry, policies, MemoryAudit()), context(tmp_path), "boom", {}
    )
    assert result.error_code == "tool_failed"
    assert "RuntimeError: kaboom" in result.for_llm
    assert "hunter2hunter2" not in result.for_llm  # error text is scrubbed too


async def test_a_tool_that_hangs_is_stopped_at_its_timeout(
    registry, policies, tmp_path: Path
) -> None:
    audit = MemoryAudit()
    result = await governed_call(
        governance(registry, policies, audit), context(tmp_path), "hang", {}
    )
    assert result.error_code == "tool_timeout"
    assert audit.entries[0].outcome == "tool_error"


async def test_mutating_call_with_a_known_id_returns_the_recorded_result(
    policies, tmp_path: Path
) -> None:
    counter = Counter()
    registry = Registry()
    registry.register(counter)
    gov = governance(registry, policies, MemoryAudit())
    first = await governed_call(gov, context(tmp_path), "bump_counter", {})
    again = await governed_call(gov, context(tmp_path), "bump_counter", {})
    assert first == again and counter.runs == 1
    await governed_call(gov, context(tmp_path, tool_call_id="run1:call2"), "bump_counter", {})
    assert counter.runs == 2


async def test_infrastructure_errors_propagate_for_temporal_to_retry(
    policies, tmp_path: Path
) -> None:
    from toolgate.tools import Capability

    registry = Registry()
    registry.register(Flaky("flaky", Capability.READ_ONLY, failures=1))
    audit = MemoryAudit()
    with pytest.raises(InfrastructureError, match="backend down"):
        await governed_call(governance(registry, policies, audit), context(tmp_path), "flaky", {})
    assert audit.entries == []  # the retry writes the record


async def test_the_tool_reads_its_merged_settings_of_this_call(registry, tmp_path: Path) -> None:
    from toolgate.tools import SettingsLayers, ToolPolicy

    from ..sample_tools import ShowSettings

    registry.register(ShowSettings())
    policies = MemoryPolicies()
    layers = SettingsLayers(
        tenant={"show_settings": {"from": "tenant"}}, platform={"show_settings": {"from": "global"}}
    )
    policies.set("acme", "a1", ToolPolicy(), layers)
    gov = governance(registry, policies, MemoryAudit())
    result = await governed_call(gov, context(tmp_path), "show_settings", {})
    assert result.for_llm == '{"from": "tenant"}'
    policies.set("acme", "a1", ToolPolicy(), SettingsLayers(agent={"show_settings": {"x": 1}}))
    second = context(tmp_path, tool_call_id="run1:call2")
    result = await governed_call(gov, second, "show_settings", {})
    assert result.for_llm == '{"x": 1}'


async def test_exec_is_refused_while_no_command_guard_is_configured(tmp_path: Path) -> None:
    policies, audit = MemoryPolicies(), MemoryAudit()
    policies.allow("acme", "a1", "exec")
    marker = tmp_path / "ran"
    result = await governed_call(
        governance(builtin_registry(), policies, audit), context(tmp_path), "exec",
        {"command": f"touch {marker}"},
    )  # fmt: skip
    assert result.error_code == "tool_not_allowed" and "command guard" in result.for_llm
    assert not marker.exists()
