"""Package installs wait for an admin: approve runs the call, deny ends it."""

from __future__ import annotations

import uuid

import httpx
import pytest

from ..helpers import TenantKeys

pytestmark = pytest.mark.devserver


async def _agent(api: httpx.AsyncClient, acme: TenantKeys) -> str:
    body = {"name": "builder", "tool_policy": {"allow": ["exec"]}}
    return str((await api.post("/v1/agents", json=body, headers=acme.admin)).json()["id"])


def _call(agent: str, command: str, call_id: str) -> dict[str, object]:
    return {"agent_id": agent, "call_id": call_id, "arguments": {"command": command}}


async def test_an_install_waits_and_runs_once_approved(
    dev_api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    api, agent, call_id = dev_api, await _agent(dev_api, acme), f"c-{uuid.uuid4().hex}"
    body = _call(agent, "brew install jq", call_id)
    first = await api.post("/v1/tools/exec/invoke", json=body, headers=acme.user)
    assert first.status_code == 202, first.text
    approval_id = first.json()["approval_id"]
    assert first.json()["status"] == "awaiting_approval"
    pending = (await api.get("/v1/approvals", headers=acme.admin)).json()
    assert [(p["id"], p["command"], p["status"]) for p in pending] == [
        (approval_id, "brew install jq", "pending")
    ]
    again = await api.post("/v1/tools/exec/invoke", json=body, headers=acme.user)
    assert again.status_code == 202 and again.json()["approval_id"] == approval_id
    user_try = await api.post(f"/v1/approvals/{approval_id}", json={"decision": "approve"},
                              headers=acme.user)  # fmt: skip
    assert user_try.status_code == 403
    decided = await api.post(f"/v1/approvals/{approval_id}", json={"decision": "approve"},
                             headers=acme.admin)  # fmt: skip
    assert decided.status_code == 200 and decided.json()["status"] == "approved"
    done = await api.post("/v1/tools/exec/invoke", json=body, headers=acme.user)
    assert done.status_code == 200, done.text
    assert done.json()["result"]["for_llm"].startswith("exit code 127")  # it ran: no brew here
    twice = await api.post(f"/v1/approvals/{approval_id}", json={"decision": "deny"},
                           headers=acme.admin)  # fmt: skip
    assert twice.status_code == 409 and twice.json()["code"] == "approval_decided"


async def test_a_denied_install_never_runs(
    dev_api: httpx.AsyncClient, acme: TenantKeys, tmp_path
) -> None:
    api, agent, call_id = dev_api, await _agent(dev_api, acme), f"c-{uuid.uuid4().hex}"
    marker = tmp_path / "installed"
    body = _call(agent, f"pip install --help && touch {marker}", call_id)
    first = await api.post("/v1/tools/exec/invoke", json=body, headers=acme.user)
    assert first.status_code == 202, first.text
    approval_id = first.json()["approval_id"]
    await api.post(f"/v1/approvals/{approval_id}", json={"decision": "deny"}, headers=acme.admin)
    done = await api.post("/v1/tools/exec/invoke", json=body, headers=acme.user)
    assert done.status_code == 403 and done.json()["code"] == "approval_denied"
    assert not marker.exists()
    listed = (await api.get("/v1/approvals", params={"status": "denied"},
                            headers=acme.admin)).json()  # fmt: skip
    assert [a["id"] for a in listed] == [approval_id]


async def test_an_approval_of_another_command_does_not_count(
    dev_api: httpx.AsyncClient, acme: TenantKeys
) -> None:
    api, agent = dev_api, await _agent(dev_api, acme)
    gem = "gem install rails"
    one = await api.post("/v1/tools/exec/invoke", headers=acme.user,
                         json=_call(agent, gem, f"c-{uuid.uuid4().hex}"))  # fmt: skip
    await api.post(f"/v1/approvals/{one.json()['approval_id']}", json={"decision": "approve"},
                   headers=acme.admin)  # fmt: skip
    other = await api.post("/v1/tools/exec/invoke", headers=acme.user,
                           json=_call(agent, gem, f"c-{uuid.uuid4().hex}"))  # fmt: skip
    assert other.status_code == 202  # a new call needs its own decision
    unknown = await api.post("/v1/approvals/ap_nope", json={"decision": "approve"},
                             headers=acme.admin)  # fmt: skip
    assert unknown.status_code == 404 and unknown.json()["code"] == "approval_not_found"
    bad = await api.post(f"/v1/approvals/{other.json()['approval_id']}",
                         json={"decision": "maybe"}, headers=acme.admin)  # fmt: skip
    assert bad.status_code == 422
