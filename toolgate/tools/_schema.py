"""Argument validation against a tool's JSON Schema (DESIGN §2 step 4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from .errors import InvalidArguments


def check_schema(schema: Mapping[str, Any]) -> None:
    """Raise ``jsonschema`` SchemaError if a tool's own schema is malformed."""
    Draft202012Validator.check_schema(schema)


def validate_arguments(tool_name: str, schema: Mapping[str, Any], args: object) -> None:
    """Raise InvalidArguments listing every violation, with its JSON path."""
    if not isinstance(args, Mapping):
        raise InvalidArguments(
            f"arguments of {tool_name!r} must be a JSON object, got {type(args).__name__}"
        )
    try:
        validator = Draft202012Validator(schema)
    except SchemaError as exc:  # a broken tool definition, not the caller's fault
        raise InvalidArguments(f"tool {tool_name!r} has an invalid schema: {exc.message}") from exc
    errors = sorted(validator.iter_errors(args), key=lambda e: list(e.absolute_path))
    if errors:
        details = "; ".join(f"{_where(e.absolute_path)}: {e.message}" for e in errors[:10])
        raise InvalidArguments(f"arguments of {tool_name!r} do not match its schema: {details}")


def _where(path: Any) -> str:
    parts = [str(p) for p in path]
    return "/" + "/".join(parts) if parts else "(root)"
