"""TEAM.md: what the lead's system prompt says of its team (spec §11). Only the lead
gets it; teammates learn what they need through team_tasks, saving tokens."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def team_md(name: str, members: Sequence[tuple[str, str, str]], lead: str) -> str:
    """``members``: (agent id, agent name, role)."""
    lines = [f"# TEAM.md — you lead the team {name!r}", "", "Teammates:"]
    lines += [f"- {agent_name} (id {agent_id}): {role}"
              for agent_id, agent_name, role in members if agent_id != lead]  # fmt: skip
    lines += [
        "",
        "Post work with team_tasks (create, with blocked_by for order), then wait: your "
        "teammates' news reaches you as messages that start with 'teammate:'. Approve or "
        "reject work in review, answer their questions, and reply to the user.",
    ]
    return "\n".join(lines)


def with_team(system_prompt: str, teams: Mapping[str, str]) -> str:
    """The agent's prompt followed by the TEAM.md of each team it leads."""
    return "\n\n".join([p for p in (system_prompt, *teams.values()) if p])
