"""Call context in Temporal headers: client → workflow → activities and children.

A caller binds the context with ``call_context(ctx)`` around ``start_workflow``; the
client interceptor puts it in the workflow's start headers; the workflow interceptor
keeps it for that run and attaches it to every activity and child workflow it starts
(a child whose input has ``child_context(parent)`` gets the context that returns); the
activity side reads it back in ``read_context``. Nothing is kept in globals.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from temporalio import client, workflow
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.worker import (
    ExecuteWorkflowInput,
    Interceptor,
    StartActivityInput,
    StartChildWorkflowInput,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
    WorkflowOutboundInterceptor,
)

from ..tools import CallContext

HEADER = "toolgate-context"

_outgoing: ContextVar[CallContext | None] = ContextVar("toolgate_outgoing_context", default=None)


@contextmanager
def call_context(ctx: CallContext) -> Iterator[None]:
    """Workflows started inside this block carry ``ctx`` in their headers."""
    token = _outgoing.set(ctx)
    try:
        yield
    finally:
        _outgoing.reset(token)


def encode(ctx: CallContext) -> Payload:
    return pydantic_data_converter.payload_converter.to_payload(ctx)


def read_context(headers: Mapping[str, Payload]) -> CallContext:
    """The context of an activity; its absence is a wiring bug, never retried."""
    payload = headers.get(HEADER)
    if payload is None:
        raise ApplicationError(
            "tool call has no toolgate-context header; start it through a toolgate client",
            type="MissingCallContext",
            non_retryable=True,
        )
    value = pydantic_data_converter.payload_converter.from_payload(payload, CallContext)
    assert isinstance(value, CallContext)
    return value


class ContextPropagation(client.Interceptor, Interceptor):
    """Install on the client (API and worker processes alike)."""

    def intercept_client(self, next: client.OutboundInterceptor) -> client.OutboundInterceptor:
        return _ClientOutbound(next)

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor] | None:
        return _WorkflowInbound


class _ClientOutbound(client.OutboundInterceptor):
    async def start_workflow(self, input: client.StartWorkflowInput) -> Any:
        ctx = _outgoing.get()
        if ctx is not None:
            input.headers = {**input.headers, HEADER: encode(ctx)}
        return await super().start_workflow(input)


class _WorkflowInbound(WorkflowInboundInterceptor):
    """One instance per workflow run: holds that run's context for its outbound calls."""

    header: Payload | None = None

    def init(self, outbound: WorkflowOutboundInterceptor) -> None:
        super().init(_WorkflowOutbound(outbound, self))

    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        self.header = input.headers.get(HEADER)
        return await super().execute_workflow(input)


class _WorkflowOutbound(WorkflowOutboundInterceptor):
    def __init__(self, next: WorkflowOutboundInterceptor, owner: _WorkflowInbound) -> None:
        super().__init__(next)
        self._owner = owner

    def _with_context(self, headers: Mapping[str, Payload]) -> Mapping[str, Payload]:
        if self._owner.header is None or HEADER in headers:
            return headers
        return {**headers, HEADER: self._owner.header}

    def start_activity(self, input: StartActivityInput) -> workflow.ActivityHandle[Any]:
        input.headers = self._with_context(input.headers)
        return super().start_activity(input)

    async def start_child_workflow(
        self, input: StartChildWorkflowInput
    ) -> workflow.ChildWorkflowHandle[Any, Any]:
        """A child inherits the run's context, unless its input derives its own (a
        subagent is one level deeper; a delegation acts as the other agent)."""
        derive = getattr(input.args[0], "child_context", None) if input.args else None
        if callable(derive) and self._owner.header is not None and HEADER not in input.headers:
            parent = pydantic_data_converter.payload_converter.from_payload(
                self._owner.header, CallContext
            )
            input.headers = {**input.headers, HEADER: encode(derive(parent))}
        input.headers = self._with_context(input.headers)
        return await super().start_child_workflow(input)
