"""Ids as they arrive from clients: any string, and only some are UUIDs."""

from __future__ import annotations

import uuid


def parse_uuid(value: str) -> uuid.UUID | None:
    """The UUID, or None for anything else: a malformed id is simply not found."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return None
