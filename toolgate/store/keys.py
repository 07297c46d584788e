"""API keys and users.

A key reads ``tgk_<id>_<secret>``. Only the SHA-256 of the secret is stored: the
secret is 256 random bits, so a plain hash is as good as a slow one and keeps
authentication to one indexed lookup. The full key is shown once, at creation.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .ids import parse_uuid
from .models import ApiKeyRow, UserRow

PREFIX = "tgk_"
_ID_LEN = 12


class Role(enum.StrEnum):
    USER = "user"
    """Reads its tenant's agents, tools and audit; invokes tools."""
    ADMIN = "admin"
    """Everything within its tenant: agents, keys, users, policy, settings, secrets."""
    MASTER = "master"
    """Platform operator: tenants, keys for any tenant, global defaults, codec."""


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling the API: resolved from the key on every request."""

    tenant_id: str
    role: Role
    key_id: str
    user_id: str | None = None


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: str
    tenant_id: str
    role: Role
    label: str
    user_id: str | None
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class User:
    id: str
    tenant_id: str
    name: str
    email: str | None
    created_at: datetime


class UserNameTaken(ValueError):
    pass


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def _key(row: ApiKeyRow) -> ApiKey:
    user = str(row.user_id) if row.user_id else None
    return ApiKey(
        row.id, row.tenant_id, Role(row.role), row.label, user, row.created_at, row.revoked_at
    )


class KeyStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def create(
        self, tenant_id: str, role: Role, label: str = "", user_id: str | None = None
    ) -> tuple[ApiKey, str]:
        """The new key and its plaintext, which is never retrievable again."""
        key_id = secrets.token_hex(_ID_LEN // 2)
        secret = secrets.token_urlsafe(32)
        row = ApiKeyRow(
            id=key_id,
            tenant_id=tenant_id,
            role=role.value,
            label=label,
            user_id=parse_uuid(user_id) if user_id else None,
            secret_hash=_hash(secret),
        )
        async with self._sessions() as session, session.begin():
            session.add(row)
            await session.flush()
            await session.refresh(row)
        return _key(row), f"{PREFIX}{key_id}_{secret}"

    async def authenticate(self, plaintext: str) -> Principal | None:
        if not plaintext.startswith(PREFIX) or len(plaintext) < len(PREFIX) + _ID_LEN + 2:
            return None
        key_id = plaintext[len(PREFIX) : len(PREFIX) + _ID_LEN]
        if plaintext[len(PREFIX) + _ID_LEN] != "_":
            return None
        secret = plaintext[len(PREFIX) + _ID_LEN + 1 :]
        async with self._sessions() as session:
            row = await session.get(ApiKeyRow, key_id)
        if row is None or row.revoked_at is not None:
            return None
        if not hmac.compare_digest(row.secret_hash, _hash(secret)):
            return None
        user = str(row.user_id) if row.user_id else None
        return Principal(row.tenant_id, Role(row.role), row.id, user)

    async def list(self, tenant_id: str) -> list[ApiKey]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ApiKeyRow)
                .where(ApiKeyRow.tenant_id == tenant_id)
                .order_by(ApiKeyRow.created_at)
            )
            return [_key(r) for r in rows]

    async def revoke(self, tenant_id: str, key_id: str) -> bool:
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                update(ApiKeyRow)
                .where(ApiKeyRow.id == key_id, ApiKeyRow.tenant_id == tenant_id)
                .where(ApiKeyRow.revoked_at.is_(None))
                .values(revoked_at=func.now())
            )
            return bool(result.rowcount)  # type: ignore[attr-defined]

    async def has_master(self) -> bool:
        async with self._sessions() as session:
            found = await session.scalar(
                select(ApiKeyRow.id)
                .where(ApiKeyRow.role == Role.MASTER.value, ApiKeyRow.revoked_at.is_(None))
                .limit(1)
            )
            return found is not None


class UserStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def create(self, tenant_id: str, name: str, email: str | None) -> User:
        row = UserRow(id=uuid.uuid4(), tenant_id=tenant_id, name=name, email=email)
        async with self._sessions() as session, session.begin():
            session.add(row)
            try:
                await session.flush()
            except IntegrityError:
                raise UserNameTaken(f"a user named {name!r} already exists") from None
            await session.refresh(row)
        return User(str(row.id), row.tenant_id, row.name, row.email, row.created_at)

    async def get(self, tenant_id: str, user_id: str) -> User | None:
        key = parse_uuid(user_id)
        if key is None:
            return None
        async with self._sessions() as session:
            row = await session.get(UserRow, key)
        if row is None or row.tenant_id != tenant_id:
            return None
        return User(str(row.id), row.tenant_id, row.name, row.email, row.created_at)

    async def list(self, tenant_id: str) -> list[User]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(UserRow).where(UserRow.tenant_id == tenant_id).order_by(UserRow.name)
            )
            return [User(str(r.id), r.tenant_id, r.name, r.email, r.created_at) for r in rows]

    async def delete(self, tenant_id: str, user_id: str) -> bool:
        user = await self.get(tenant_id, user_id)
        if user is None:
            return False
        async with self._sessions() as session, session.begin():
            row = await session.get(UserRow, uuid.UUID(user.id))
            if row is not None:
                await session.delete(row)
        return True
