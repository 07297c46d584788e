"""Workflow history holds ciphertext; the codec endpoint lets an operator read it."""

from __future__ import annotations

import base64
import json

import httpx
from google.protobuf import json_format
from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from toolgate.crypto import ENCODING
from toolgate.services import Services

from ..helpers import TenantKeys

MARKER = "plain-text-marker-4711"


async def _history_payloads(env: WorkflowEnvironment, workflow_id: str) -> list[Payload]:
    """Every payload of the history, read by a client that has no key."""
    raw = Client(
        env.client.service_client,
        namespace=env.client.namespace,
        data_converter=pydantic_data_converter,
    )
    history = await raw.get_workflow_handle(workflow_id).fetch_history()
    found: list[Payload] = []

    def walk(value: object) -> None:
        if isinstance(value, Payload):
            found.append(value)
        elif isinstance(value, Message):
            for _field, item in value.ListFields():
                walk(item)
        elif isinstance(value, str | bytes | int | float):
            return
        elif hasattr(value, "values"):  # a protobuf map
            for item in value.values():
                walk(item)
        else:  # a repeated field
            for item in value:  # type: ignore[attr-defined]
                walk(item)

    for event in history.events:
        walk(event)
    return found


async def test_tool_arguments_and_results_are_ciphertext_in_history(
    api: httpx.AsyncClient,
    acme: TenantKeys,
    master: dict[str, str],
    temporal_env: WorkflowEnvironment,
) -> None:
    agent = (await api.post("/v1/agents", json={"name": "c"}, headers=acme.admin)).json()["id"]
    call = {"agent_id": agent, "arguments": {"path": "m.txt", "content": MARKER}}
    done = await api.post("/v1/tools/write_file/invoke", json=call, headers=acme.user)
    read = await api.post("/v1/tools/read_file/invoke", headers=acme.user,
                          json={"agent_id": agent, "arguments": {"path": "m.txt"}})  # fmt: skip
    assert read.json()["result"]["for_llm"] == MARKER
    payloads = await _history_payloads(temporal_env, done.json()["workflow_id"])
    payloads += await _history_payloads(temporal_env, read.json()["workflow_id"])
    encrypted = [p for p in payloads if p.metadata.get("encoding") == ENCODING]
    assert len(encrypted) >= 4  # workflow input + activity input + activity result + result
    plain = [p for p in payloads if p.data and p.metadata.get("encoding") != ENCODING]
    assert not plain, plain
    assert not any(MARKER.encode() in p.data for p in payloads)

    body = json_format.MessageToJson(Payloads(payloads=encrypted))
    decoded = await api.post("/v1/codec/decode", content=body, headers=master)
    assert decoded.status_code == 200
    datas = [base64.b64decode(p["data"]) for p in decoded.json()["payloads"]]
    assert any(MARKER.encode() in d for d in datas)
    meta = decoded.json()["payloads"][0]["metadata"]["encoding"]
    assert base64.b64decode(meta) == b"json/plain"


async def test_codec_needs_a_master_key(
    api: httpx.AsyncClient, acme: TenantKeys, master: dict[str, str]
) -> None:
    body = json.dumps({"payloads": []})
    assert (await api.post("/v1/codec/decode", content=body)).status_code == 401
    assert (await api.post("/v1/codec/decode", content=body, headers=acme.admin)).status_code == 403
    assert (await api.post("/v1/codec/decode", content=body, headers=master)).json() == {}


async def test_codec_round_trip_and_bad_input(
    api: httpx.AsyncClient, master: dict[str, str]
) -> None:
    plain = Payloads(payloads=[Payload(metadata={"encoding": b"json/plain"}, data=b'"hi"')])
    encoded = await api.post(
        "/v1/codec/encode", content=json_format.MessageToJson(plain), headers=master
    )
    assert b"hi" not in base64.b64decode(encoded.json()["payloads"][0]["data"])
    decoded = await api.post("/v1/codec/decode", content=encoded.text, headers=master)
    assert json_format.Parse(decoded.text, Payloads()) == plain
    garbage = await api.post("/v1/codec/decode", content=b"{nope", headers=master)
    assert garbage.status_code == 400 and garbage.json()["code"] == "invalid_payloads"
    meta = {"encoding": ENCODING, "encryption-key-id": b"gone"}
    foreign = Payloads(payloads=[Payload(metadata=meta, data=b"\0" * 40)])
    unknown = await api.post(
        "/v1/codec/decode", content=json_format.MessageToJson(foreign), headers=master
    )
    assert unknown.status_code == 400 and unknown.json()["code"] == "undecodable_payload"
    assert "'gone'" in unknown.json()["message"]


async def test_the_web_ui_route_needs_its_token_and_cors_admits_the_ui(
    api: httpx.AsyncClient, services: Services
) -> None:
    body = json.dumps({"payloads": []})
    assert (await api.post("/v1/codec/ui/anything/decode", content=body)).status_code == 404
    services.settings.codec_ui_token = "the-ui-token"
    assert (await api.post("/v1/codec/ui/wrong/decode", content=body)).status_code == 404
    assert (await api.post("/v1/codec/ui/the-ui-token/decode", content=body)).status_code == 200
    preflight = await api.options(
        "/v1/codec/ui/the-ui-token/decode",
        headers={"Origin": "http://127.0.0.1:8233", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type,x-namespace"},
    )  # fmt: skip
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "http://127.0.0.1:8233"
    stranger = await api.options(
        "/v1/codec/decode",
        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in stranger.headers
