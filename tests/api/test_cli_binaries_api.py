"""Credentialed CLIs end to end: register gh, grant one agent, deny_args, wrappers,
the keyword allowlist, scrubbing of the injected token, and failing closed."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from toolgate.services import Services

from ..helpers import TenantKeys

TOKEN = "gh-token-0123456789abcdef"
FAKE_GH = """#!/bin/sh
echo "gh called with: $*"
echo "token: $GH_TOKEN"
"""


@pytest.fixture
def fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `gh` on the worker's PATH that shows its arguments and its injected token."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return gh


async def _setup(api: httpx.AsyncClient, acme: TenantKeys, **extra: object) -> tuple[str, str, str]:
    h = acme.admin
    agents = []
    for name in ("granted", "other"):
        body = {"name": name, "tool_policy": {"allow": ["exec"]}}
        agents.append((await api.post("/v1/agents", json=body, headers=h)).json()["id"])
    body = {"binary_name": "gh", "preset": "gh", "env": {"GH_TOKEN": TOKEN}, **extra}
    created = await api.post("/v1/cli-binaries", json=body, headers=h)
    assert created.status_code == 201, created.text
    binary = created.json()["id"]
    grant = await api.put(f"/v1/cli-binaries/{binary}/grants/{agents[0]}", headers=h)
    assert grant.status_code == 204
    return binary, agents[0], agents[1]


async def _run(
    api: httpx.AsyncClient, acme: TenantKeys, agent: str, command: str
) -> httpx.Response:
    return await api.post("/v1/tools/exec/invoke", headers=acme.user,
                          json={"agent_id": agent, "arguments": {"command": command}})  # fmt: skip


async def test_only_the_granted_agent_runs_it_with_the_token_injected_and_scrubbed(
    api: httpx.AsyncClient, acme: TenantKeys, fake_gh: Path
) -> None:
    binary, granted, other = await _setup(api, acme)
    listed = (await api.get(f"/v1/cli-binaries/{binary}", headers=acme.admin)).json()
    assert listed["env"] == {"GH_TOKEN": {"kind": "sensitive", "value": "****"}}
    assert listed["granted_agents"] == [granted] and TOKEN not in str(listed)
    assert "gh auth token" in " ".join(listed["deny_args"]) or listed["deny_args"]
    ran = await _run(api, acme, granted, "gh issue list --limit 5")
    assert ran.status_code == 200, ran.text
    assert ran.json()["result"]["for_llm"] == (
        "exit code 0\ngh called with: issue list --limit 5\ntoken: [REDACTED]\n"
    )
    refused = await _run(api, acme, other, "gh issue list")
    assert refused.status_code == 403
    assert (refused.json()["code"], refused.json()["group"]) == (
        "cli_not_granted",
        "credentialed_cli",
    )
    no_cli = await _run(api, acme, other, "echo $GH_TOKEN")
    assert no_cli.json()["result"]["for_llm"] == "exit code 0\n\n"  # never in a shell's env


@pytest.mark.parametrize(
    "command",
    ["gh auth token", "sh -c 'gh auth token'", "bash -c \"sh -c 'gh auth token'\"",
     "/usr/local/bin/gh auth token", "gh secret set TOKEN --body x"],
)  # fmt: skip
async def test_deny_args_hold_through_wrappers(
    api: httpx.AsyncClient, acme: TenantKeys, fake_gh: Path, command: str
) -> None:
    _, granted, _ = await _setup(api, acme)
    refused = await _run(api, acme, granted, command)
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == "cli_args_denied" and refused.json()["pattern"]


@pytest.mark.parametrize(
    "command", ["gh issue list | cat", "gh api user > out.json", "X=1 gh api user",
                "gh api $ENDPOINT", "echo hi; gh issue list", "env A=1 gh api user"],
)  # fmt: skip
async def test_a_credentialed_cli_runs_alone(
    api: httpx.AsyncClient, acme: TenantKeys, fake_gh: Path, command: str
) -> None:
    _, granted, _ = await _setup(api, acme)
    refused = await _run(api, acme, granted, command)
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] in {"cli_not_alone", "command_denied"}


async def test_the_keyword_allowlist_lets_prose_through_but_not_commands(
    api: httpx.AsyncClient, acme: TenantKeys, master: dict[str, str], fake_gh: Path
) -> None:
    _, granted, _ = await _setup(api, acme, deny_args=[r"\bsecrets?\b", r"auth\s+token"])
    prose = "gh issue create --title 'Rotate keys' --body 'secret rotation notes'"
    assert (await _run(api, acme, granted, prose)).json()["code"] == "cli_args_denied"
    rule = {"id": "github-content", "command": "gh",
            "subcommands": ["issue create", "issue edit", "pr create", "pr comment"],
            "args": ["--body", "--title"], "argPositions": [],
            "keywords": ["secret", "secrets", "token", "credential"]}  # fmt: skip
    put = await api.put("/v1/global/command-keyword-allowlist", json={"rules": [rule]},
                        headers=master)  # fmt: skip
    try:
        assert put.status_code == 200
        ran = await _run(api, acme, granted, prose)
        assert ran.status_code == 200, ran.text
        assert "secret rotation notes" in ran.json()["result"]["for_llm"]
        inline = await _run(api, acme, granted, "gh pr create --body=secrets-inline")
        assert inline.status_code == 200
        still = await _run(api, acme, granted, "gh secret set TOKEN")
        assert still.json()["code"] == "cli_args_denied"
    finally:
        await api.put("/v1/global/command-keyword-allowlist", json={"rules": []}, headers=master)


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [({"binary_name": "gh", "deny_args": ["auth(("]}, "invalid_settings", "deny_args[0]"),
     ({"binary_name": "gh", "preset": "github"}, "unknown_preset", "preset"),
     ({"binary_name": "gh", "adapter": "magic"}, "invalid_settings", "adapter"),
     ({"binary_name": "gh; rm", "preset": "gh"}, "invalid_settings", "binary_name"),
     ({"binary_name": "gh", "timeout_seconds": 0}, "invalid_settings", "timeout_seconds")],
)  # fmt: skip
async def test_bad_binaries_are_refused_on_write(
    api: httpx.AsyncClient, acme: TenantKeys, body: dict, code: str, field: str
) -> None:
    response = await api.post("/v1/cli-binaries", json=body, headers=acme.admin)
    assert response.status_code == 422, response.text
    assert (response.json()["code"], response.json()["field"]) == (code, field)
    assert (await api.get("/v1/cli-binaries", headers=acme.admin)).json() == []


async def test_bad_allowlists_are_refused(api: httpx.AsyncClient, master: dict[str, str]) -> None:
    bad = await api.put("/v1/global/command-keyword-allowlist",
                        json={"rules": [{"id": "x", "command": "gh", "keywords": []}]},
                        headers=master)  # fmt: skip
    assert bad.status_code == 422 and bad.json()["field"] == "rules[0].keywords"


async def test_an_unreadable_credential_store_refuses_and_runs_nothing(
    api: httpx.AsyncClient, acme: TenantKeys, services: Services, fake_gh: Path, tmp_path: Path
) -> None:
    binary, granted, _ = await _setup(api, acme)
    async with services.sessions() as session, session.begin():
        await session.execute(
            text("UPDATE secure_cli_binaries SET encrypted_env = jsonb_set(encrypted_env, "
                 "'{GH_TOKEN,ciphertext}', '\"AAAAAAAAAAAAAAAAAAAAAAAA\"') WHERE id = :id"),
            {"id": uuid.UUID(binary)},
        )  # fmt: skip
    services.configs.invalidate_all()
    marker = tmp_path / "ran"
    refused = await _run(api, acme, granted, f"touch {marker}")
    assert refused.status_code == 503 and refused.json()["code"] == "config_unavailable"
    assert not marker.exists()
