"""Which tools an agent may use.

This is the first stage of the policy engine (spec §6): the agent's allow list,
intersected with the per-request allow list a channel may inject. The layered
pipeline (profiles, provider overrides, deny lists) replaces ``effective_tools``
behind the same signature.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._ports import AgentPolicy
from ._registry import Registry
from .errors import ToolNotAllowed

#: Spec §6 tool groups, for ``group:<name>`` references.
TOOL_GROUPS: dict[str, frozenset[str]] = {
    "fs": frozenset({"read_file", "write_file", "list_files", "edit", "send_file"}),
    "runtime": frozenset({"exec"}),
    "web": frozenset({"web_search", "web_fetch"}),
    "memory": frozenset({"memory_search", "memory_get"}),
    "sessions": frozenset(
        {"sessions_list", "sessions_history", "sessions_send", "spawn", "session_status"}
    ),
    "automation": frozenset({"cron"}),
    "messaging": frozenset({"message", "create_forum_topic", "list_group_members"}),
    "team": frozenset({"team_tasks"}),
}


def expand(entries: Iterable[str], registry: Registry) -> set[str]:
    """Tool names named by ``entries`` (names, ``group:<name>``, ``*``) that exist."""
    names: set[str] = set()
    registered = set(registry.names())
    for entry in entries:
        if entry == "*":
            names |= registered
        elif entry.startswith("group:"):
            group = entry.removeprefix("group:")
            members = set(TOOL_GROUPS.get(group, frozenset()))
            members |= {t.spec.name for t in registry if group in t.spec.groups}
            names |= members & registered
        elif entry in registered:
            names.add(entry)
    return names


def effective_tools(
    policy: AgentPolicy, registry: Registry, request_allow: Iterable[str] | None = None
) -> set[str]:
    """The names of the tools that reach this agent's LLM."""
    allowed = expand(policy.allowed_tools, registry)
    if request_allow is not None:
        allowed &= expand(request_allow, registry)
    return allowed


def check_allowed(
    policy: AgentPolicy,
    registry: Registry,
    tool_name: str,
    request_allow: Iterable[str] | None = None,
) -> None:
    """Raise ToolNotAllowed unless ``tool_name`` is in the agent's effective list."""
    if tool_name not in effective_tools(policy, registry, request_allow):
        raise ToolNotAllowed(
            f"tool {tool_name!r} is not allowed for agent {policy.agent_id}; "
            "an admin can add it to the agent's allowed_tools"
        )
