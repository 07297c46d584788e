from __future__ import annotations

import uuid

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from temporalio.client import WorkflowFailureError

from ...tools import CallContext, PolicyRequest, ToolDescriptor
from ...tools.errors import ToolNotFound
from ...workflows import ToolCallStatus
from ..deps import CurrentPrincipal, ServicesDep, TemporalClientDep, agent_config, load_agent
from ..errors import GATE_STATUS, ApiError
from ..invoking import invoke
from ..schemas import ApprovalPending, InvokeRequest, InvokeResponse, ResultPublic, ToolPublic

router = APIRouter(prefix="/v1/tools", tags=["tools"])


def _public(d: ToolDescriptor) -> ToolPublic:
    return ToolPublic(
        name=d.name,
        description=d.description,
        parameters=dict(d.parameters),
        capability=d.capability.value,
        groups=sorted(d.groups),
        timeout_seconds=d.timeout_seconds,
    )


@router.get("", response_model=list[ToolPublic])
async def list_tools(
    services: ServicesDep,
    principal: CurrentPrincipal,
    agent_id: str = Query(description="The agent whose tools to list"),
    provider: str = "",
    user_id: str = Query(default="", description="List as this user sees them (MCP grants)"),
) -> list[ToolPublic]:
    """The tools this agent's LLM may use, with schemas and capabilities."""
    agent = await load_agent(services, principal, agent_id)
    config = await agent_config(services, agent)
    registry = config.registry(services.registry)
    user = user_id or principal.user_id or ""
    names = config.tool_names(registry, PolicyRequest(provider=provider), user)
    return [_public(registry.describe(n)) for n in sorted(names)]


@router.post(
    "/{name}/invoke",
    response_model=InvokeResponse,
    responses={202: {"model": ApprovalPending, "description": "waits for an admin's approval"}},
)
async def invoke_tool(
    name: str,
    body: InvokeRequest,
    services: ServicesDep,
    temporal: TemporalClientDep,
    principal: CurrentPrincipal,
) -> InvokeResponse | JSONResponse:
    """Run one governed call as a ToolCall workflow and wait for its result.

    The gate's refusals come back as 4xx errors; a tool that ran and reported an
    error comes back as 200 with ``result.is_error`` set.
    """
    agent = await load_agent(services, principal, body.agent_id)
    try:
        registry = (await agent_config(services, agent)).registry(services.registry)
        descriptor = registry.describe(name)
    except ToolNotFound as exc:
        raise ApiError(404, exc.code, exc.message) from None
    call_id = body.call_id or uuid.uuid4().hex
    context = CallContext(
        tenant_id=agent.tenant_id,
        agent_id=agent.id,
        user_id=body.user_id or principal.user_id or "",
        session_key=body.session_key,
        channel=body.channel,
        chat_id=body.chat_id,
        request_allow=body.request_allow,
        provider=body.provider,
    )
    try:
        invoked = await invoke(services, temporal, agent, descriptor, body.arguments, context,
                               call_id, body.approval_timeout_seconds)  # fmt: skip
    except WorkflowFailureError as exc:
        cause = getattr(exc.cause, "message", str(exc.cause))
        raise ApiError(
            502, "tool_call_failed", cause, workflow_id=f"toolcall-{agent.id}-{call_id}"
        ) from None
    outcome, workflow_id, handle = invoked.outcome, invoked.workflow_id, invoked.handle
    if isinstance(outcome, ToolCallStatus):
        pending = ApprovalPending(
            approval_id=outcome.approval_id or "", call_id=call_id, workflow_id=workflow_id
        )
        return JSONResponse(pending.model_dump(), status_code=202)
    result = outcome
    run_id = handle.result_run_id or handle.run_id or (await handle.describe()).run_id
    if result.is_error and result.error_code in GATE_STATUS:
        raise ApiError(
            GATE_STATUS[result.error_code],
            result.error_code,
            result.for_llm,
            workflow_id=workflow_id,
            call_id=call_id,
            **result.details,
        )
    return InvokeResponse(
        tool=name,
        call_id=call_id,
        tool_call_id=f"{run_id}:{call_id}",
        workflow_id=workflow_id,
        run_id=run_id,
        result=ResultPublic.model_validate(result),
    )
