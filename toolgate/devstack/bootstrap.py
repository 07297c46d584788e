"""First-start material for `toolgate dev`: an encryption key ring and a master key.

Both live in the data directory with mode 0600, so a restart finds them again (the
ring must stay the same or the stored secrets and workflow history cannot be read).
TOOLGATE_SECRET_KEYS, when set, wins over the file.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..config import Settings
from ..crypto import generate_key
from ..services import build_services
from ..store import MASTER_TENANT, Role

KEYS_FILE = "secret-keys"
MASTER_KEY_FILE = "master-key"


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(text + "\n")


def dev_key_ring(data: Path) -> str:
    from_env = os.environ.get("TOOLGATE_SECRET_KEYS", "").strip()
    if from_env:
        return from_env
    path = data / KEYS_FILE
    if not path.exists():
        _write_private(path, generate_key("dev1"))
    return path.read_text().strip()


async def ensure_master_key(settings: Settings, data: Path) -> str:
    """The master key of this data directory, created on first start.

    Shown where `toolgate dev` prints its URLs; the file is how you find it again.
    """
    path = data / MASTER_KEY_FILE
    if path.exists():
        return path.read_text().strip()
    services = build_services(settings)
    try:
        _key, plaintext = await services.keys.create(MASTER_TENANT, Role.MASTER, "toolgate dev")
    finally:
        await services.close()
    _write_private(path, plaintext)
    return plaintext
