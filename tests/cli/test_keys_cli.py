"""Key management from the command line: gen-key, create-key, rotate-key, and a
wrong or missing key ring at start (one clear line, exit 1, no data touched)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from toolgate.config import Settings
from toolgate.crypto import KeyRing, generate_key
from toolgate.services import Services, build_services
from toolgate.store.models import ConfigSecretRow, KeyCanaryRow

from ..helpers import SECRET_KEYS, new_tenant
from .test_cli import run_toolgate


def _env(pg_url: str, keys: str) -> dict[str, str]:
    return {"TOOLGATE_DATABASE_URL": pg_url, "TOOLGATE_SECRET_KEYS": keys}


def test_gen_key_prints_a_usable_ring_entry() -> None:
    result = run_toolgate("gen-key", "--key-id", "prod2")
    assert result.returncode == 0
    ring = KeyRing.parse(result.stdout.strip())
    assert ring.active == "prod2"


@pytest.mark.parametrize(
    ("keys", "message"),
    [("", "no encryption key configured; set TOOLGATE_SECRET_KEYS"),
     ("justtext", "is not '<key id>:<base64 key>'"),
     ("k1:bm90IDMyIGJ5dGVz", "key 'k1' is 12 bytes; AES-256 needs 32"),
     ("k1:%%%", "key 'k1' is not valid base64")],
)  # fmt: skip
def test_a_missing_or_malformed_ring_is_one_clear_line(
    pg_url: str, keys: str, message: str
) -> None:
    result = run_toolgate("worker", env=_env(pg_url, keys))
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.stderr


async def _secret_rows(services: Services) -> list[tuple[str, str, bytes]]:
    async with services.sessions() as session:
        rows = await session.scalars(select(ConfigSecretRow).order_by(ConfigSecretRow.name))
        return [(r.name, r.key_id, r.ciphertext) for r in rows]


async def _canaries(services: Services) -> dict[str, bytes]:
    async with services.sessions() as session:
        return {r.key_id: r.ciphertext for r in await session.scalars(select(KeyCanaryRow))}


@pytest.mark.parametrize("command", ["api", "rotate-key"])
async def test_a_wrong_key_at_start_is_refused_and_nothing_is_touched(
    services: Services, pg_url: str, command: str
) -> None:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    await services.secrets.put(tenant, "token", "the-real-secret-value")
    before, canaries = await _secret_rows(services), await _canaries(services)
    wrong = generate_key("test1")  # same id as the session's key, other bytes
    result = run_toolgate(command, env=_env(pg_url, wrong))
    assert result.returncode == 1
    assert "key 'test1' does not decrypt" in result.stderr and "Traceback" not in result.stderr
    assert await _secret_rows(services) == before
    assert await _canaries(services) == canaries


async def test_rotate_key_re_encrypts_with_the_new_key_and_values_survive(
    services: Services, pg_url: str, tmp_path
) -> None:
    tenant = new_tenant()
    await services.tenants.create(tenant)
    await services.secrets.put(tenant, "a", "value-a-0123456789")
    await services.secrets.put(tenant, "b", "value-b-0123456789")
    rotated = f"{generate_key('rot' + tenant[-6:])},{SECRET_KEYS}"
    result = run_toolgate("rotate-key", env=_env(pg_url, rotated))
    assert result.returncode == 0, result.stderr
    assert "re-encrypted" in result.stdout
    new = build_services(Settings(database_url=pg_url, secret_keys=rotated, data_dir=tmp_path))
    try:
        assert await new.secrets.values(tenant) == {
            "a": "value-a-0123456789",
            "b": "value-b-0123456789",
        }
        assert {k for _n, k, _c in await _secret_rows(new)} == {"rot" + tenant[-6:]}
    finally:
        await new.close()
    # Without the new key the secrets are now unreadable: the old ring is refused at start.
    old = run_toolgate("worker", env=_env(pg_url, SECRET_KEYS))
    assert old.returncode == 1 and "which TOOLGATE_SECRET_KEYS does not hold" in old.stderr
    # Put them back under the session key so other tests start cleanly.
    back = run_toolgate("rotate-key", env=_env(pg_url, f"{SECRET_KEYS},{rotated.split(',')[0]}"))
    assert back.returncode == 0, back.stderr


def test_create_key_bootstraps_a_master_key(pg_url: str) -> None:
    result = run_toolgate("create-key", env=_env(pg_url, SECRET_KEYS))
    assert result.returncode == 0 and result.stdout.startswith("tgk_")
    bad = run_toolgate("create-key", "--tenant", "nope-none", "--role", "admin",
                       env=_env(pg_url, SECRET_KEYS))  # fmt: skip
    assert bad.returncode == 1 and "no tenant 'nope-none'" in bad.stderr
    role = run_toolgate("create-key", "--role", "root", env=_env(pg_url, SECRET_KEYS))
    assert role.returncode == 2 and "unknown role 'root'" in role.stderr
