"""Small helpers shared by tests (fixtures live in conftest.py)."""

from __future__ import annotations

import uuid


def new_tenant() -> str:
    """A tenant id no other test uses, so tests share one database safely."""
    return f"t-{uuid.uuid4().hex[:16]}"
