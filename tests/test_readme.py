"""The README's tour, run as written against a real `toolgate dev`.

The shell blocks of "A 5-minute tour" run in order in one bash, from a fresh
directory, with only the API port changed (the stack runs on free ports); the
expectations below are the results the README's comments promise.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from toolgate.devstack import free_port

from .devstack.dev_process import start_dev, stop_dev, wait_ready

README = Path(__file__).resolve().parents[1] / "README.md"

PROMISES = [
    '"id":"acme"',
    '"decided_by":"agent_deny"',
    '"reason":"removed by agent deny list"',
    '"tools":["edit","list_files","read_file","session_status","sessions_history",'
    '"sessions_list","sessions_send","spawn","write_file"]',
    '{"code":"tool_not_allowed"',
    '"for_llm":"wrote 37 bytes to notes/db.txt"',
    '"for_llm":"url: postgres://app:[REDACTED]@db/app"',
    '"error_code":"path_denied"',
    '"code":"invalid_arguments"',
    '"code":"invalid_api_key"',
    '"field":"exec.timeout_seconds"',
    '{"tool":"exec","settings":{"timeout_seconds":120},"source":"tenant"}',
    '"masked":"****6789"',
    "[]",
    '"code":"agent_not_found"',
    '"for_llm":"exit code 0\\n.\\n..\\n"',
    '"group":"filter_bypass"',
    "127.0.0.1",
    '"code":"cli_args_denied"',
    '"code":"cli_not_granted"',
    '"group":"credentialed_cli"',
    'event: tool_started\ndata: {"index": 1, "id": "call_0_0", "name": "list_files"',
    'event: assistant\ndata: {"index": 4, "text": "I looked around."}',
    'event: done\ndata: {"state": "completed"',
    "completed] done fast\ncompleted] done fast",
    "sub-1 a cancelled\nsub-2 b cancelled\nsub-3 c completed\nsub-4 a completed",
    "T1 completed notes written\nT2 completed all green\nT3 pending",
    "(tester) finished T2, waiting for your review: all green",
    "['mcp_notes_add_note', 'mcp_notes_read_note', 'mcp_notes_list_notes', "
    "'mcp_notes_show_config']",
    "['mcp_notes_add_note', 'mcp_notes_read_note', 'session_status']",
    '"result": "stored todo"',
    '"error_code":"mcp_unavailable"',
    '"for_llm":"no note todo"',
]


def tour_script(api_port: int) -> str:
    text = README.read_text()
    tour = text[text.index("## A 5-minute tour") : text.index("## Configuration")]
    blocks = re.findall(r"```sh\n(.*?)```", tour, flags=re.S)
    assert len(blocks) >= 5
    script = "\n".join(f"{block}\necho" for block in blocks)
    return script.replace("localhost:8000", f"localhost:{api_port}")


def test_the_readme_tour_works_as_written(tmp_path: Path) -> None:
    ports = {"api-port": free_port(), "temporal-port": free_port(),
             "ui-port": free_port(), "pg-port": free_port()}  # fmt: skip
    proc = start_dev(tmp_path / ".toolgate", ports)
    try:
        wait_ready(proc)
        result = subprocess.run(
            ["bash", "-c", tour_script(ports["api-port"])],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        code, alive = stop_dev(proc)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    missing = [p for p in PROMISES if p not in out]
    assert not missing, f"the README promises {missing}; the tour printed:\n{out}"
    assert "s3cretpass" not in out and "BSA-example-key-0123456789" not in out
    assert "your-github-token-here" not in out
    assert "notes-token-0123456789" not in out
    assert code == 0 and alive == set()
