"""Custom shell tools (spec §7): defined at run time, rendered, judged, run like exec.

A definition names its parameters (a JSON Schema) and a command template whose
``{{.param}}`` placeholders are replaced by the shell-quoted argument, so a value
holding quotes, ``;``, ``$()`` or newlines arrives as one literal word. The rendered
command goes through the same shell deny check as ``exec`` (step 6); environment
variables of the definition are injected into the child only (``sensitive`` values
are also scrubbed from every result of the tenant).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema.exceptions import SchemaError

from ._groups import CUSTOM_GROUP
from ._model import Capability, ToolContext, ToolResult
from ._schema import check_schema
from ._tool import ToolSpec
from .builtin._process import run_shell
from .errors import InvalidSettings

PLACEHOLDER = re.compile(r"\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,127}$")
MAX_TEMPLATE = 16 * 1024
DEFAULT_TIMEOUT = 60
#: Variables a definition may not set: they would change how the child runs code.
RESERVED_ENV = re.compile(
    r"^(PATH|HOME|SHELL|IFS|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND|PS4|NODE_OPTIONS|"
    r"PYTHONSTARTUP|PYTHONPATH|PERL5OPT|PERL5LIB|RUBYOPT|GIT_SSH_COMMAND|GIT_ASKPASS|"
    r"SSH_ASKPASS|GCONV_PATH)$"
)


@dataclass(frozen=True, slots=True)
class EnvVar:
    value: str
    kind: str = "sensitive"
    """``sensitive`` (masked, replace-only) or ``value`` (visible to admins)."""


@dataclass(frozen=True, slots=True)
class CustomToolDef:
    id: str
    tenant_id: str
    name: str
    description: str
    parameters: Mapping[str, Any]
    command: str
    agent_id: str | None = None
    """None: every agent of the tenant; else only that agent."""
    timeout_seconds: int = DEFAULT_TIMEOUT
    enabled: bool = True
    env: Mapping[str, EnvVar] = field(default_factory=dict)


def _invalid(message: str, where: str) -> InvalidSettings:
    error = InvalidSettings(message, field=where)
    error.code = "invalid_custom_tool"
    return error


def check_definition(
    name: str,
    parameters: Mapping[str, Any],
    command: str,
    timeout_seconds: int,
    env_names: Iterable[str],
    reserved_names: Iterable[str],
) -> None:
    """Refuse, on write, a definition that could never run as written."""
    if not NAME.match(name):
        raise _invalid(f"name {name!r}: lowercase letters, digits and _ (≤ 64)", "name")
    if name in set(reserved_names):
        raise _invalid(f"name {name!r} is a built-in tool; choose another", "name")
    try:
        check_schema(parameters)
    except SchemaError as exc:
        raise _invalid(
            f"parameters is not a valid JSON Schema: {exc.message}", "parameters"
        ) from None
    if parameters.get("type") != "object":
        raise _invalid('parameters must be a JSON Schema with "type": "object"', "parameters.type")
    if not command.strip() or len(command) > MAX_TEMPLATE:
        raise _invalid(f"command must be 1..{MAX_TEMPLATE} characters", "command")
    declared = set((parameters.get("properties") or {}).keys())
    missing = sorted(set(PLACEHOLDER.findall(command)) - declared)
    if missing:
        raise _invalid(
            f"command names {{{{.{missing[0]}}}}}, which parameters.properties does not declare",
            "command",
        )
    if not 1 <= timeout_seconds <= 3600:
        raise _invalid("timeout_seconds must be 1..3600", "timeout_seconds")
    for env_name in env_names:
        if not ENV_NAME.match(env_name) or RESERVED_ENV.match(env_name):
            raise _invalid(f"env {env_name!r} is not an allowed variable name", f"env.{env_name}")


def _literal(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value)


def render(command: str, args: Mapping[str, Any]) -> str:
    """The template with each placeholder replaced by one shell-quoted word."""
    return PLACEHOLDER.sub(lambda m: shlex.quote(_literal(args.get(m.group(1)))), command)


class CustomTool:
    """A CommandTool: the gate judges ``command_for(args)`` before ``execute`` runs it."""

    def __init__(self, definition: CustomToolDef) -> None:
        self.definition = definition
        self._spec = ToolSpec(
            name=definition.name,
            description=definition.description,
            parameters=definition.parameters,
            capability=Capability.MUTATING,
            groups=frozenset({CUSTOM_GROUP}),
            timeout_seconds=definition.timeout_seconds + 5,  # the tool kills at its own timeout
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def command_for(self, args: Mapping[str, Any]) -> str:
        return render(self.definition.command, args)

    async def execute(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
        env = {name: var.value for name, var in self.definition.env.items()}
        return await run_shell(
            self.command_for(args),
            ctx.workspace,
            self.definition.timeout_seconds,
            env=env,
            timeout_hint=f" (the tool's timeout_seconds is {self.definition.timeout_seconds})",
        )
