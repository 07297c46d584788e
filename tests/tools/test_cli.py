"""Credential adapters and the keyword allowlist, without storage."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest

from toolgate.tools import ToolContext
from toolgate.tools.cli import (
    CliBinary,
    GitAdapter,
    KeywordRule,
    get_adapter,
    run_credentialed,
    scanned_arguments,
)

RULE = KeywordRule("gh-prose", "gh", ("issue create", "pr comment"), ("--body", "--title"),
                   (1,), ("secret", "token"))  # fmt: skip


def test_keywords_are_masked_only_in_the_content_of_matching_subcommands() -> None:
    scanned = scanned_arguments("gh", ["issue", "create", "--body", "a secret plan"], [RULE])
    assert "secret" not in " ".join(scanned) and scanned[:3] == ["issue", "create", "--body"]
    inline = scanned_arguments("gh", ["issue", "create", "--title=token rotation"], [RULE])
    assert "token" not in inline[2] and inline[2].startswith("--title=")
    positional = scanned_arguments("gh", ["pr", "comment", "12", "secret stuff"], [RULE])
    assert "secret" not in positional[3] and positional[2] == "12"
    other = scanned_arguments("gh", ["secret", "set", "TOKEN"], [RULE])
    assert other == ["secret", "set", "TOKEN"]
    assert scanned_arguments("glab", ["issue", "create", "--body", "secret"], [RULE])[3] == "secret"


def test_unknown_adapters_fall_back_to_passthrough() -> None:
    assert get_adapter("").name == get_adapter("nope").name == "passthrough"
    injection = get_adapter("passthrough").prepare(["aws", "s3", "ls"], {"AWS_KEY": "k1"})
    assert injection.env == {"AWS_KEY": "k1"} and injection.scrub_values == ["k1"]


def test_git_injects_only_for_remote_subcommands_and_cleans_up() -> None:
    git = GitAdapter()
    assert not git.should_inject(["git", "status"]) and not git.should_inject(["git", "log"])
    assert git.should_inject(["git", "clone", "https://example.com/r.git"])
    injection = git.prepare(["git", "fetch"], {"GIT_TOKEN": "t0k3n-value"})
    helper = Path(injection.env["GIT_ASKPASS"])
    env = {**os.environ, **injection.env}
    prompts = ("Username for 'https://example.com': ", "Password for 'https://x@e': ")
    asked = [subprocess.run([str(helper), p], env=env, capture_output=True, text=True).stdout
             for p in prompts]  # fmt: skip
    assert asked == ["x-access-token\n", "t0k3n-value\n"]
    assert "t0k3n-value" not in helper.read_text()  # the helper holds no secret
    assert injection.argv_prefix == ["-c", "credential.helper="]
    assert injection.cleanup is not None
    injection.cleanup()
    assert not helper.parent.exists()


async def test_a_credentialed_run_logs_one_injection_line_without_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho "args: $*"\n"$GIT_ASKPASS" "Password for x"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    binary = CliBinary("b1", "acme", "git", {"GIT_TOKEN": "secret-t0k"}, adapter="git",
                       granted_agents=frozenset({"a1"}))  # fmt: skip
    ctx = ToolContext(tenant_id="acme", agent_id="a1", workspace=tmp_path / "ws")
    with caplog.at_level(logging.WARNING, logger="toolgate.security"):
        result = await run_credentialed(binary, ["git", "fetch", "origin"], ctx)
    assert result.for_llm == "exit code 0\nargs: -c credential.helper= fetch origin\nsecret-t0k\n"
    lines = [r for r in caplog.records if r.getMessage() == "security.system_env_injection"]
    assert len(lines) == 1 and lines[0].env_names == ["GIT_ASKPASS", "GIT_TERMINAL_PROMPT",  # type: ignore[attr-defined]
                                                       "TOOLGATE_GIT_TOKEN"]  # fmt: skip
    assert "secret-t0k" not in caplog.text
    local = await run_credentialed(binary, ["git", "status"], ctx)
    assert "credential.helper" not in local.for_llm  # no injection for local commands
