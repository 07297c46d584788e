"""`toolgate chat`: a terminal conversation with an agent, through the REST API.

Each line you type is sent to the session; the run's events are printed as they
arrive: tool calls as they start and finish, then the assistant's answer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import httpx


class ChatError(RuntimeError):
    pass


def _events(client: httpx.Client, run_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
    with client.stream("GET", f"/v1/runs/{run_id}/events", timeout=None) as response:
        if response.status_code != 200:
            raise ChatError(f"cannot follow run {run_id}: {response.read().decode()[:300]}")
        kind = ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                yield kind, json.loads(line.removeprefix("data: "))


def _check(response: httpx.Response) -> dict[str, Any]:
    if response.status_code >= 400:
        try:
            body = response.json()
            message = f"{body.get('code')}: {body.get('message')}"
        except ValueError:
            message = response.text[:300]
        raise ChatError(message)
    data: dict[str, Any] = response.json()
    return data


def chat(api: str, key: str, agent_id: str, session_id: str | None,
         lines: TextIO = sys.stdin, out: TextIO = sys.stdout) -> None:  # fmt: skip
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=api, headers=headers, timeout=30) as client:
        if session_id is None:
            session = _check(client.post("/v1/sessions", json={"agent_id": agent_id}))
            session_id = str(session["id"])
        out.write(f"session {session_id} (type a message; Ctrl-D to leave)\n")
        for line in lines:
            text = line.strip()
            if not text:
                continue
            sent = _check(client.post(f"/v1/sessions/{session_id}/messages", json={"text": text}))
            if sent["delivered"] == "signalled":
                out.write("(added to the running run)\n")
                continue
            for kind, data in _events(client, sent["run_id"]):
                if kind == "tool_started":
                    out.write(f"  → {data['name']} {json.dumps(data['arguments'])}\n")
                elif kind == "tool_finished":
                    mark = "✗" if data["is_error"] else "✓"
                    out.write(f"  {mark} {data['result'][:200]}\n")
                elif kind == "assistant":
                    out.write(f"{data['text']}\n")
                elif kind == "done" and data["state"] != "completed":
                    out.write(
                        f"(run {data['state']}: {data.get('error') or data.get('final_text')})\n"
                    )
            out.flush()
