"""Sessions and agent runs: converse with an agent; watch, steer and cancel its runs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field
from temporalio.client import Client, WorkflowHandle

from ...conversations import deliver, is_running
from ...providers import AgentLLM, Message
from ...services import Services
from ...store import Principal, Session
from ...tools import HookList
from ...workflows import AgentRunStatus, AgentRunWorkflow, UserMessage
from ..deps import AdminPrincipal, CurrentPrincipal, ServicesDep, TemporalClientDep, load_agent
from ..errors import ApiError

router = APIRouter(tags=["sessions"])
EVENT_POLL_SECONDS = 0.25


class SessionCreate(BaseModel):
    agent_id: str
    user_id: str = Field(default="", max_length=200)
    channel: str = Field(default="", max_length=100)
    chat_id: str = Field(default="", max_length=200)


class SessionPublic(BaseModel):
    model_config = {"from_attributes": True}

    id: str
    agent_id: str
    user_id: str
    channel: str
    chat_id: str
    current_run: str | None
    created_at: Any


class MessageIn(BaseModel):
    text: str = Field(min_length=1, max_length=200_000)


class RunAccepted(BaseModel):
    run_id: str
    session_id: str
    delivered: str
    """``started`` (a new run) or ``signalled`` (the running run got the message)."""


async def _session(services: Services, principal: Principal, session_id: str) -> Session:
    found = await services.sessions_store.get(principal.tenant_id, session_id)
    if found is None:
        raise ApiError(404, "session_not_found", f"no session {session_id!r} in your tenant")
    return found


async def _run(services: Services, principal: Principal, temporal: Client, run_id: str
               ) -> WorkflowHandle[Any, AgentRunStatus]:  # fmt: skip
    parts = run_id.removeprefix("agentrun-").rsplit("-", 1)
    if not run_id.startswith("agentrun-") or len(parts) != 2:
        raise ApiError(404, "run_not_found", f"no run {run_id!r} in your tenant")
    await _session(services, principal, parts[0])
    return temporal.get_workflow_handle_for(AgentRunWorkflow.run, run_id)


@router.put("/v1/agents/{agent_id}/llm", response_model=AgentLLM)
async def set_agent_llm(
    agent_id: str, body: AgentLLM, services: ServicesDep, principal: AdminPrincipal
) -> AgentLLM:
    """The agent's provider, model, key (a secret's name), limits; next run uses them."""
    await load_agent(services, principal, agent_id)
    await services.agents.set_other_config(
        principal.tenant_id, agent_id, "llm", body.model_dump(mode="json", exclude_none=True)
    )
    return body


@router.get("/v1/agents/{agent_id}/llm", response_model=AgentLLM)
async def get_agent_llm(
    agent_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> AgentLLM:
    agent = await load_agent(services, principal, agent_id)
    return AgentLLM.model_validate(agent.other_config.get("llm") or {})


@router.put("/v1/agents/{agent_id}/hooks", response_model=HookList)
async def set_agent_hooks(
    agent_id: str, body: HookList, services: ServicesDep, principal: AdminPrincipal
) -> HookList:
    """PreToolUse hooks (``rewrite``, ``webhook``), applied in order on the next turn."""
    await load_agent(services, principal, agent_id)
    hooks = [h.model_dump(mode="json") for h in body.hooks]
    await services.agents.set_other_config(principal.tenant_id, agent_id, "hooks", hooks)
    return body


@router.get("/v1/agents/{agent_id}/hooks", response_model=HookList)
async def get_agent_hooks(
    agent_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> HookList:
    agent = await load_agent(services, principal, agent_id)
    return HookList.model_validate({"hooks": agent.other_config.get("hooks") or []})


@router.post("/v1/sessions", status_code=201, response_model=SessionPublic)
async def create_session(
    body: SessionCreate, services: ServicesDep, principal: CurrentPrincipal
) -> SessionPublic:
    agent = await load_agent(services, principal, body.agent_id)
    created = await services.sessions_store.create(
        principal.tenant_id, agent.id, body.user_id or principal.user_id or "", body.channel,
        body.chat_id,
    )  # fmt: skip
    return SessionPublic.model_validate(created)


@router.get("/v1/sessions", response_model=list[SessionPublic])
async def list_sessions(
    services: ServicesDep, principal: CurrentPrincipal, agent_id: str | None = None
) -> list[SessionPublic]:
    found = await services.sessions_store.find(principal.tenant_id, agent_id)
    return [SessionPublic.model_validate(s) for s in found]


@router.get("/v1/sessions/{session_id}", response_model=SessionPublic)
async def get_session(
    session_id: str, services: ServicesDep, principal: CurrentPrincipal
) -> SessionPublic:
    return SessionPublic.model_validate(await _session(services, principal, session_id))


@router.get("/v1/sessions/{session_id}/messages", response_model=list[Message])
async def session_messages(
    session_id: str,
    services: ServicesDep,
    principal: CurrentPrincipal,
    offset: int = Query(default=0, ge=0),
    limit: int = Query(default=100, ge=1, le=500),
) -> list[Message]:
    """The stored conversation, oldest first, paged."""
    await _session(services, principal, session_id)
    return await services.sessions_store.messages(session_id, offset, limit)


@router.post("/v1/sessions/{session_id}/messages", status_code=202, response_model=RunAccepted)
async def send_message(
    session_id: str,
    body: MessageIn,
    services: ServicesDep,
    temporal: TemporalClientDep,
    principal: CurrentPrincipal,
) -> RunAccepted:
    """Give the running run this message, or start a run with the whole conversation."""
    session = await _session(services, principal, session_id)
    run_id, delivered = await deliver(services, temporal, session, body.text)
    return RunAccepted(run_id=run_id, session_id=session_id, delivered=delivered)


@router.get("/v1/runs/{run_id}", response_model=AgentRunStatus)
async def run_status(
    run_id: str, services: ServicesDep, temporal: TemporalClientDep, principal: CurrentPrincipal
) -> AgentRunStatus:
    handle = await _run(services, principal, temporal, run_id)
    return await handle.query(AgentRunWorkflow.status)


@router.get("/v1/runs/{run_id}/history", response_model=list[Message])
async def run_history(
    run_id: str, services: ServicesDep, temporal: TemporalClientDep, principal: CurrentPrincipal
) -> list[Message]:
    handle = await _run(services, principal, temporal, run_id)
    return await handle.query(AgentRunWorkflow.history)


@router.post("/v1/runs/{run_id}/messages", status_code=202, response_model=RunAccepted)
async def signal_run(
    run_id: str,
    body: MessageIn,
    services: ServicesDep,
    temporal: TemporalClientDep,
    principal: CurrentPrincipal,
) -> RunAccepted:
    """A message to this run; a finished run answers 409 (post to its session instead)."""
    handle = await _run(services, principal, temporal, run_id)
    if not await is_running(handle):
        raise ApiError(409, "run_finished", f"run {run_id} has finished; send the message to "
                       "its session with POST /v1/sessions/{id}/messages")  # fmt: skip
    await handle.signal(AgentRunWorkflow.user_message, UserMessage(text=body.text))
    session_id = run_id.removeprefix("agentrun-").rsplit("-", 1)[0]
    return RunAccepted(run_id=run_id, session_id=session_id, delivered="signalled")


@router.post("/v1/runs/{run_id}/cancel", status_code=202, response_model=None)
async def cancel_run(
    run_id: str, services: ServicesDep, temporal: TemporalClientDep, principal: CurrentPrincipal
) -> JSONResponse:
    handle = await _run(services, principal, temporal, run_id)
    if not await is_running(handle):
        raise ApiError(409, "run_finished", f"run {run_id} has already finished")
    await handle.signal(AgentRunWorkflow.cancel)
    return JSONResponse({"run_id": run_id, "cancelling": True}, status_code=202)


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


@router.get("/v1/runs/{run_id}/events")
async def run_events(
    run_id: str, services: ServicesDep, temporal: TemporalClientDep, principal: CurrentPrincipal
) -> StreamingResponse:
    """Server-Sent Events: each message as it appears (assistant text, tool_started,
    tool_finished), then ``done`` with the final status."""
    handle = await _run(services, principal, temporal, run_id)

    async def stream() -> AsyncIterator[str]:
        sent = 0
        while True:
            running = await is_running(handle)
            history = await handle.query(AgentRunWorkflow.history)
            for index, message in enumerate(history[sent:], start=sent):
                yield _message_events(index, message)
            sent = len(history)
            if not running:
                status = await handle.query(AgentRunWorkflow.status)
                yield _sse("done", status.model_dump())
                return
            await asyncio.sleep(EVENT_POLL_SECONDS)

    return StreamingResponse(stream(), media_type="text/event-stream")


def _message_events(index: int, message: Message) -> str:
    out = []
    if message.role == "assistant":
        if message.content:
            out.append(_sse("assistant", {"index": index, "text": message.content}))
        for call in message.tool_calls:
            out.append(_sse("tool_started", {"index": index, "id": call.id, "name": call.name,
                                             "arguments": call.arguments}))  # fmt: skip
    elif message.role == "tool":
        out.append(_sse("tool_finished", {"index": index, "id": message.tool_call_id,
                                          "is_error": message.is_error,
                                          "result": message.content[:2000]}))  # fmt: skip
    else:
        out.append(_sse(message.role, {"index": index, "text": message.content}))
    return "".join(out)
