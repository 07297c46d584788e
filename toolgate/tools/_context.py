"""Step 1 of the governed call: the immutable ToolContext, built from the wire form."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ._model import CallContext, ToolContext
from ._paths import workspace_for


def build_context(
    wire: CallContext,
    workspace_root: Path,
    tool_call_id: str,
    scrub_values: Iterable[str] = (),
    workflow_id: str = "",
) -> ToolContext:
    """Resolve the workspace for (tenant, agent, user) and freeze everything."""
    return ToolContext(
        tenant_id=wire.tenant_id,
        agent_id=wire.agent_id,
        workspace=workspace_for(workspace_root, wire.tenant_id, wire.agent_id, wire.user_id),
        user_id=wire.user_id,
        session_key=wire.session_key,
        channel=wire.channel,
        chat_id=wire.chat_id,
        peer_kind=wire.peer_kind,
        sandbox_key=wire.sandbox_key,
        subagent_depth=wire.subagent_depth,
        request_allow=frozenset(wire.request_allow) if wire.request_allow is not None else None,
        tool_call_id=tool_call_id,
        scrub_values=tuple(scrub_values),
        provider=wire.provider,
        workflow_id=workflow_id,
    )
