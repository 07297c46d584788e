"""Tenant secrets (config_secrets), AES-256-GCM under the key ring.

Write-only through the API: values are decrypted for the worker (tools, scrubbing),
never returned to a client. Each ciphertext is bound to its tenant and name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..crypto import KeyRing, KeyRingError
from ..crypto.keyring import Sealed
from .models import ConfigSecretRow, KeyCanaryRow
from .notify import ChangeHook, ConfigChange, ignore_changes, publish, writing

_CANARY = b"toolgate key canary"


@dataclass(frozen=True, slots=True)
class SecretInfo:
    name: str
    masked: str
    key_id: str
    updated_at: datetime


def mask(value: str) -> str:
    return "****" + value[-4:] if len(value) >= 16 else "****"


def _aad(tenant_id: str, name: str) -> bytes:
    return f"secret\x00{tenant_id}\x00{name}".encode()


class SecretStore:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        ring: KeyRing,
        on_change: ChangeHook = ignore_changes,
    ) -> None:
        self._sessions = sessions
        self._on_change = on_change
        self._ring = ring

    async def put(self, tenant_id: str, name: str, value: str) -> SecretInfo:
        sealed = self._ring.seal(value.encode(), _aad(tenant_id, name))
        values = {
            "key_id": sealed.key_id,
            "nonce": sealed.nonce,
            "ciphertext": sealed.ciphertext,
        }
        async with writing(self._sessions, self._on_change) as session:
            stmt = insert(ConfigSecretRow).values(tenant_id=tenant_id, name=name, **values)
            await session.execute(
                stmt.on_conflict_do_update(
                    index_elements=["tenant_id", "name"], set_={**values, "updated_at": func.now()}
                )
            )
            await publish(session, ConfigChange(tenant_id, "secret"))
            row = await session.get(ConfigSecretRow, (tenant_id, name))
            assert row is not None
            await session.refresh(row)
            return SecretInfo(name, mask(value), row.key_id, row.updated_at)

    async def list(self, tenant_id: str) -> list[SecretInfo]:
        async with self._sessions() as session:
            rows = list(
                await session.scalars(
                    select(ConfigSecretRow)
                    .where(ConfigSecretRow.tenant_id == tenant_id)
                    .order_by(ConfigSecretRow.name)
                )
            )
        return [SecretInfo(r.name, mask(self._open(r)), r.key_id, r.updated_at) for r in rows]

    async def values(self, tenant_id: str) -> dict[str, str]:
        """Decrypted values, for the worker only (tools and the scrubber)."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ConfigSecretRow).where(ConfigSecretRow.tenant_id == tenant_id)
            )
            return {r.name: self._open(r) for r in rows}

    async def delete(self, tenant_id: str, name: str) -> bool:
        async with writing(self._sessions, self._on_change) as session:
            result = await session.execute(
                delete(ConfigSecretRow).where(
                    ConfigSecretRow.tenant_id == tenant_id, ConfigSecretRow.name == name
                )
            )
            await publish(session, ConfigChange(tenant_id, "secret"))
            return bool(result.rowcount)  # type: ignore[attr-defined]

    async def rotate(self) -> int:
        """Re-encrypt every secret not under the active key; returns how many."""
        changed = 0
        async with self._sessions() as session, session.begin():
            rows = await session.scalars(
                select(ConfigSecretRow)
                .where(ConfigSecretRow.key_id != self._ring.active)
                .with_for_update()
            )
            for row in rows:
                plain = self._open(row).encode()
                sealed = self._ring.seal(plain, _aad(row.tenant_id, row.name))
                row.key_id, row.nonce, row.ciphertext = (
                    sealed.key_id,
                    sealed.nonce,
                    sealed.ciphertext,
                )
                changed += 1
        return changed

    async def verify_ring(self) -> None:
        """Refuse to start with a ring that cannot read what is stored; change nothing.

        Every key of the ring must open its canary (written the first time the key was
        seen); every secret must be under a key of the ring. Only when all of that holds
        are canaries added for new keys.
        """
        async with self._sessions() as session:
            canaries = {r.key_id: r for r in await session.scalars(select(KeyCanaryRow))}
            used = set(await session.scalars(select(ConfigSecretRow.key_id).distinct()))
        for key_id in self._ring.key_ids:
            canary = canaries.get(key_id)
            if canary is not None:
                self._ring.open(Sealed(key_id, canary.nonce, canary.ciphertext), _CANARY)
        missing = sorted(used - set(self._ring.key_ids))
        if missing:
            raise KeyRingError(
                f"stored secrets are encrypted with key(s) {', '.join(missing)}, which "
                "TOOLGATE_SECRET_KEYS does not hold; add them back after the active key"
            )
        async with self._sessions() as session, session.begin():
            for key_id in set(self._ring.key_ids) - set(canaries):
                sealed = self._ring.seal(_CANARY, _CANARY) if key_id == self._ring.active else None
                if sealed is None:
                    continue  # only the active key can write its canary here
                await session.execute(
                    insert(KeyCanaryRow)
                    .values(key_id=key_id, nonce=sealed.nonce, ciphertext=sealed.ciphertext)
                    .on_conflict_do_nothing()
                )

    def _open(self, row: ConfigSecretRow) -> str:
        sealed = Sealed(row.key_id, row.nonce, row.ciphertext)
        return self._ring.open(sealed, _aad(row.tenant_id, row.name)).decode()
