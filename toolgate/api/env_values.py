"""Environment values as clients send them (custom tools, credentialed CLIs).

A plain string is a ``sensitive`` value (the spec's legacy ``{"TOKEN": "..."}``); an
update names only what changes: a value replaces, ``null`` removes, absent keeps.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..tools import EnvVar
from .schemas import EnvValue


def env_var(value: str | EnvValue) -> EnvVar:
    return EnvVar(value) if isinstance(value, str) else EnvVar(value.value, value.kind)


def patched_env(
    current: Mapping[str, EnvVar], patch: Mapping[str, str | EnvValue | None] | None
) -> dict[str, EnvVar]:
    env = dict(current)
    for name, value in (patch or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = env_var(value)
    return env
