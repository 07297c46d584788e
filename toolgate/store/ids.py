"""Ids as they arrive from clients: any string, and only some are UUIDs."""

from __future__ import annotations

import uuid
from typing import Any, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession


def parse_uuid(value: str) -> uuid.UUID | None:
    """The UUID, or None for anything else: a malformed id is simply not found."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


class _TenantOwned(Protocol):
    tenant_id: Any


RowT = TypeVar("RowT", bound=_TenantOwned)


async def tenant_row(
    session: AsyncSession, model: type[RowT], tenant_id: str, row_id: str
) -> RowT | None:
    """The row with this id if it belongs to this tenant; another tenant's is not found."""
    key = parse_uuid(row_id)
    if key is None:
        return None
    row = await session.get(model, key)
    return row if row is not None and row.tenant_id == tenant_id else None
