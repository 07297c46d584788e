"""`toolgate dev` end to end: start, serve a call, stop cleanly, keep data."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import httpx

from toolgate.devstack import free_port

from .dev_process import start_dev, stop_dev, wait_ready


def _banner_value(banner: str, label: str) -> str:
    line = next(x for x in banner.splitlines() if x.strip().startswith(label))
    return line.split()[-1]


def _history_is_encrypted_and_the_codec_reads_it(
    temporal_port: int, workflow_id: str, codec: str, master_key: str
) -> None:
    """Temporal's own CLI, with and without our codec server."""
    show = [str(Path(sys.executable).parent / "temporal"), "workflow", "show", "-w", workflow_id,
            "--address", f"127.0.0.1:{temporal_port}", "-o", "json"]  # fmt: skip
    raw = subprocess.run(show, capture_output=True, text=True, timeout=30)
    assert raw.returncode == 0, raw.stderr
    assert b"kept-text" not in _payload_bytes(raw.stdout)
    assert b"binary/encrypted" in _payload_bytes(raw.stdout)
    decoded = subprocess.run(
        [*show, "--codec-endpoint", codec, "--codec-auth", f"Bearer {master_key}"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert decoded.returncode == 0, decoded.stderr
    assert b"kept-text" in _payload_bytes(decoded.stdout)


def _payload_bytes(history_json: str) -> bytes:
    """Every base64 value of a JSON history (payload data and metadata), decoded."""
    found: list[bytes] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, str) and (key == "data" or key == "encoding"):
                    found.append(base64.b64decode(item + "==="))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(history_json))
    return b"\n".join(found)


def test_dev_stack_serves_stops_every_child_and_keeps_its_data(tmp_path: Path) -> None:
    ports = {
        "api-port": free_port(),
        "temporal-port": free_port(),
        "ui-port": free_port(),
        "pg-port": free_port(),
    }
    data = tmp_path / "data"
    api = f"http://127.0.0.1:{ports['api-port']}"

    proc = start_dev(data, ports)
    banner = wait_ready(proc)
    assert f"Temporal UI   http://127.0.0.1:{ports['ui-port']}" in banner
    master_key = _banner_value(banner, "master key")
    assert (data / "master-key").read_text().strip() == master_key
    assert oct((data / "master-key").stat().st_mode & 0o777) == "0o600"
    master = {"Authorization": f"Bearer {master_key}"}
    assert httpx.post(f"{api}/v1/tenants", json={"id": "acme"}, headers=master).is_success
    key = httpx.post(f"{api}/v1/tenants/acme/keys", json={"role": "admin"}, headers=master)
    admin = {"Authorization": f"Bearer {key.json()['key']}"}
    agent = httpx.post(
        f"{api}/v1/agents",
        json={"name": "coder", "tool_policy": {"allow": ["group:fs"]}},
        headers=admin,
    ).json()
    write = httpx.post(
        f"{api}/v1/tools/write_file/invoke",
        json={"agent_id": agent["id"], "arguments": {"path": "a.txt", "content": "kept-text"}},
        headers=admin,
        timeout=30,
    )
    assert write.status_code == 200, write.text
    ui = httpx.get(f"http://127.0.0.1:{ports['ui-port']}/", timeout=10)
    assert ui.status_code == 200
    ui_settings = httpx.get(f"http://127.0.0.1:{ports['ui-port']}/api/v1/settings", timeout=10)
    codec_endpoint = ui_settings.json()["Codec"]["Endpoint"]
    assert codec_endpoint.startswith(f"{api}/v1/codec/ui/")
    _history_is_encrypted_and_the_codec_reads_it(
        ports["temporal-port"], write.json()["workflow_id"], f"{api}/v1/codec", master_key
    )
    code, alive = stop_dev(proc)
    assert code == 0 and alive == set()

    proc = start_dev(data, ports)
    assert _banner_value(wait_ready(proc), "master key") == master_key  # same key after restart
    try:
        read = httpx.post(
            f"{api}/v1/tools/read_file/invoke",
            json={"agent_id": agent["id"], "arguments": {"path": "a.txt"}},
            headers=admin,
            timeout=30,
        )
        assert read.json()["result"]["for_llm"] == "kept-text"
        workflows = subprocess.run(
            [str(Path(sys.executable).parent / "temporal"), "workflow", "count",
             "--address", f"127.0.0.1:{ports['temporal-port']}"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert "Total: 2" in workflows.stdout  # the write survived the restart in Temporal too
    finally:
        code, alive = stop_dev(proc)
    assert code == 0 and alive == set()
