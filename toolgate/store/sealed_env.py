"""Environment variables stored encrypted in a JSONB column (custom tools, CLIs).

Each value is AES-256-GCM under the key ring with associated data naming its owner
and the variable, so a value moved to another row or name does not decrypt. The
stored form is ``{name: {"kind", "key_id", "nonce", "ciphertext"}}``.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from ..crypto import KeyRing
from ..crypto.keyring import Sealed
from ..tools import EnvVar


def _aad(owner: str, name: str) -> bytes:
    return f"env\x00{owner}\x00{name}".encode()


def seal_env(ring: KeyRing, owner: str, env: Mapping[str, EnvVar]) -> dict[str, Any]:
    stored: dict[str, Any] = {}
    for name, var in env.items():
        sealed = ring.seal(var.value.encode(), _aad(owner, name))
        stored[name] = {
            "kind": var.kind,
            "key_id": sealed.key_id,
            "nonce": base64.b64encode(sealed.nonce).decode(),
            "ciphertext": base64.b64encode(sealed.ciphertext).decode(),
        }
    return stored


def open_env(ring: KeyRing, owner: str, stored: Mapping[str, Any]) -> dict[str, EnvVar]:
    env = {}
    for name, item in stored.items():
        sealed = Sealed(
            item["key_id"], base64.b64decode(item["nonce"]), base64.b64decode(item["ciphertext"])
        )
        env[name] = EnvVar(
            ring.open(sealed, _aad(owner, name)).decode(), item.get("kind", "sensitive")
        )
    return env


def masked(env: Mapping[str, EnvVar]) -> dict[str, dict[str, str]]:
    """What the API shows: ``value`` kinds in clear, ``sensitive`` ones as ``****``."""
    return {
        name: {"kind": var.kind, "value": var.value if var.kind == "value" else "****"}
        for name, var in sorted(env.items())
    }
