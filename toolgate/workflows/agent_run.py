"""AgentRun: the durable agent loop (DESIGN §3).

Each turn: read the turn's setup (the tools policy lets reach the LLM, the limits),
call the LLM (an activity), run the tool calls it asked for (each a governed tool
activity under the tool's own name), append the results, repeat until a final
answer or ``max_iterations``. Read-only tool calls of one turn run concurrently up to
a bound; everything else runs alone, in the LLM's order; results go back in the
LLM's order (spec §3). Signals steer the run (``user_message``, ``cancel``); queries
show it (``status``, ``history``). Everything recorded here is conversation text and
ids: no keys (the LLM activity resolves them in the worker).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, CancelledError
from temporalio.workflow import ActivityCancellationType

with workflow.unsafe.imports_passed_through():
    from ..activities.agent import (
        AgentRef,
        AgentTurnSetup,
        LLMCallInput,
        PreToolUseInput,
        SessionRecordInput,
        ToolInfo,
    )
    from ..activities.tool_call import ToolCall
    from ..providers import LLMRequest, LLMResponse, Message, ToolCallOut, ToolSchema
    from ..tools import Capability, HookOutcome, ToolResult
    from .retry import retry_policy_for
    from .tool_call import GATE_MARGIN, HEARTBEAT_TIMEOUT

from ._children import ChildParent

LLM_TIMEOUT = timedelta(minutes=5)
LLM_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=1),
    maximum_attempts=6,
)
#: Tools that never join a parallel batch, whatever their capability says (spec §3).
ALWAYS_ALONE = frozenset({"exec", "bash", "wait", "spawn", "delegate"})
#: Tools the loop runs itself: they start and cancel child workflows.
CHILD_TOOLS = frozenset({"spawn", "delegate"})


class AgentRunInput(BaseModel):
    """Recorded in history: must not hold secrets."""

    agent: AgentRef
    message: str = Field(min_length=1, max_length=200_000)
    history: list[Message] = Field(default_factory=list)
    max_iterations: int | None = Field(default=None, ge=1, le=200)
    """Overrides the agent's setting (subagents use 20)."""
    session_id: str | None = None
    """When set, the run's messages are appended to this session in Postgres."""


class AgentRunStatus(BaseModel):
    state: str
    """``running``, ``completed``, ``cancelled``, ``max_iterations`` or ``failed``."""
    iterations: int
    final_text: str = ""
    pending_messages: int = 0
    error: str = ""


class UserMessage(BaseModel):
    text: str = Field(min_length=1, max_length=200_000)


class AgentLoop(ChildParent):
    """The loop, its signals and queries; the workflows below add their ``run``."""

    def __init__(self) -> None:
        super().__init__()
        self._messages: list[Message] = []
        self._pending: list[str] = []
        self._status = AgentRunStatus(state="running", iterations=0)
        self._cancelled = False
        self._in_flight: list[asyncio.Task[Any]] = []
        self._recorded = 0

    async def _execute(self, start: AgentRunInput) -> AgentRunStatus:
        self._start = start
        self._messages = [*start.history, Message(role="user", content=start.message)]
        self._recorded = len(start.history)
        while True:
            await self._run_loop(start)
            await self._record(start)
            await self._settle_cancelled()
            await workflow.wait_condition(workflow.all_handlers_finished)
            if self._resume():
                continue
            await self._forward_unread()
            if not self._resume():
                return self._status

    async def _run_loop(self, start: AgentRunInput) -> None:
        try:
            await self._loop(start)
        except (asyncio.CancelledError, CancelledError):
            self._status.state = "cancelled"
            self._cancel_children()
        except ActivityError as err:
            if isinstance(err.cause, CancelledError):  # an LLM call or setup, cancelled
                self._status.state = "cancelled"
                self._cancel_children()
            else:
                self._status.state = "failed"
                self._status.error = str(getattr(err.cause, "message", err.cause or err))

    def _resume(self) -> bool:
        """A message that arrived while a completed run was finishing its bookkeeping is
        answered too (it would be lost otherwise): take it and go on."""
        if self._status.state != "completed" or not self._pending or self._cancelled:
            return False
        message = self._pending.pop(0)
        self._read(message)
        self._messages.append(Message(role="user", content=message))
        self._status.state, self._status.final_text = "running", ""
        self._status.pending_messages = len(self._pending)
        return True

    async def _record(self, start: AgentRunInput) -> None:
        """Append what the session has not stored yet (a no-op without a session)."""
        if start.session_id is None or self._recorded >= len(self._messages):
            return
        new = self._messages[self._recorded :]
        await workflow.execute_activity(
            "SessionRecord",
            SessionRecordInput(session_id=start.session_id, first_seq=self._recorded, messages=new),
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=LLM_RETRY,
        )
        self._recorded += len(new)

    async def _loop(self, start: AgentRunInput) -> None:
        while not self._cancelled:
            setup = await self._activity("AgentTurnSetup", start.agent, AgentTurnSetup)
            self._limits = setup.spawn
            limit = start.max_iterations or setup.max_iterations
            if self._status.iterations >= limit:
                self._status.state = "max_iterations"
                self._status.final_text = f"stopped after {limit} iterations without a final answer"
                return
            self._status.iterations += 1
            response = await self._llm(start.agent, setup)
            self._messages.append(
                Message(role="assistant", content=response.text, tool_calls=response.tool_calls)
            )
            if response.tool_calls:
                calls = await self._pre_tool_use(start.agent, response.tool_calls, setup)
                await self._run_tools(calls, setup)
                await self._record(start)
                continue
            if not self._pending and self._running("spawn", "async"):
                await self._until(
                    lambda: bool(self._pending or not self._running("spawn", "async"))
                )
            if self._cancelled:
                break
            if self._pending:
                message = self._pending.pop(0)
                self._read(message)
                self._messages.append(Message(role="user", content=message))
                self._status.pending_messages = len(self._pending)
                continue
            await self._settle_cancelled()  # "completed" means nothing of it still runs
            self._status.state = "completed"
            self._status.final_text = response.text
            return
        self._status.state = "cancelled"

    async def _activity(self, name: str, arg: Any, result_type: type[Any]) -> Any:
        task = asyncio.ensure_future(
            workflow.execute_activity(
                name, arg, result_type=result_type, start_to_close_timeout=LLM_TIMEOUT,
                heartbeat_timeout=HEARTBEAT_TIMEOUT, retry_policy=LLM_RETRY,
                cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
            )
        )  # fmt: skip
        return await self._track(task)

    async def _until(self, condition: Callable[[], bool]) -> None:
        """Wait for the spawned subagents' reports (or a cancel) before answering."""
        await workflow.wait_condition(lambda: self._cancelled or condition())

    async def _track(self, task: asyncio.Task[Any]) -> Any:
        """Await an activity; a cancel of the run that arrived meanwhile is raised even
        when the activity finished anyway (waiting for a cancelled activity to end
        returns its result if it completed before it heard of the cancel)."""
        self._in_flight.append(task)
        try:
            result = await task
        finally:
            self._in_flight.remove(task)
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise asyncio.CancelledError
        return result

    async def _llm(self, agent: AgentRef, setup: AgentTurnSetup) -> LLMResponse:
        system = (
            [Message(role="system", content=setup.system_prompt)] if setup.system_prompt else []
        )
        request = LLMRequest(
            model=setup.model,
            messages=[*system, *self._messages],
            tools=[
                ToolSchema(name=t.name, description=t.description, parameters=t.parameters)
                for t in setup.tools
            ],  # fmt: skip
        )
        result: LLMResponse = await self._activity(
            "LLMCall", LLMCallInput(agent=agent, request=request), LLMResponse
        )
        return result

    async def _pre_tool_use(
        self, agent: AgentRef, calls: list[ToolCallOut], setup: AgentTurnSetup
    ) -> list[ToolCallOut]:
        """Hooks see every call before any tool starts; a block becomes a parse-error-like
        refusal the LLM reads, a rewrite replaces the arguments."""
        if not setup.has_hooks:
            return calls
        outcomes: list[HookOutcome] = await self._activity(
            "PreToolUse", PreToolUseInput(agent=agent, calls=calls), list[HookOutcome]
        )
        return [
            call.model_copy(update={"arguments": o.arguments}) if o.allowed
            else call.model_copy(update={"parse_error": f"blocked: {o.reason}", "blocked": True})
            for call, o in zip(calls, outcomes, strict=True)
        ]  # fmt: skip

    async def _run_tools(self, calls: list[ToolCallOut], setup: AgentTurnSetup) -> None:
        """Read-only calls in bounded parallel batches; the rest alone; LLM's order kept."""
        known = {t.name: t for t in setup.tools}
        results: list[ToolResult | None] = [None] * len(calls)
        bound = asyncio.Semaphore(setup.parallel_tool_calls)
        index = 0
        while index < len(calls):
            if self._cancelled:
                break
            batch = [index]
            if _parallel(calls[index], known):
                while index + len(batch) < len(calls) and _parallel(
                    calls[index + len(batch)], known
                ):
                    batch.append(index + len(batch))
            outcomes = await asyncio.gather(
                *(self._tool(calls[i], known.get(calls[i].name), bound) for i in batch)
            )
            for i, outcome in zip(batch, outcomes, strict=True):
                results[i] = outcome
            index += len(batch)
        for call, slot in zip(calls, results, strict=True):
            done = slot or ToolResult.error("cancelled", "the run was cancelled")
            self._messages.append(
                Message(
                    role="tool",
                    tool_call_id=call.id,
                    content=done.for_llm,
                    is_error=done.is_error,
                )  # fmt: skip
            )

    async def _tool(
        self, call: ToolCallOut, info: ToolInfo | None, bound: asyncio.Semaphore
    ) -> ToolResult:
        if call.blocked:
            return ToolResult.error("hook_blocked", f"{call.name}: {call.parse_error}")
        if call.name in CHILD_TOOLS and info is not None and call.parse_error is None:
            return await self._child_tool(call)
        if call.parse_error is not None:
            return ToolResult.error("invalid_arguments", f"{call.name}: {call.parse_error}")
        capability = info.capability if info else Capability.MUTATING
        timeout = timedelta(seconds=info.timeout_seconds if info else 60.0) + GATE_MARGIN
        async with bound:
            task = asyncio.ensure_future(
                workflow.execute_activity(
                    call.name,
                    ToolCall(call_id=call.id, arguments=call.arguments),
                    result_type=ToolResult,
                    start_to_close_timeout=timeout,
                    heartbeat_timeout=HEARTBEAT_TIMEOUT,
                    retry_policy=retry_policy_for(capability, bool(info and info.idempotent)),
                    summary=f"{call.name} ({capability.value})",
                    # A cancelled run ends once its tools have stopped, not before.
                    cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
                )
            )
            try:
                result: ToolResult = await self._track(task)
                return result
            except ActivityError as err:
                if isinstance(err.cause, CancelledError):
                    # The run is being cancelled: its tools stopped (we waited for
                    # that), and the cancel goes on up instead of becoming a result.
                    raise asyncio.CancelledError from err
                message = getattr(err.cause, "message", str(err.cause))
                return ToolResult.error("tool_call_failed", f"{call.name} failed: {message}")

    @workflow.signal
    def user_message(self, message: UserMessage) -> None:
        """A new message: answered after the current turn (or now, if the run is idle)."""
        self._pending.append(message.text)
        self._status.pending_messages = len(self._pending)

    @workflow.signal
    def cancel(self) -> None:
        """Stop: in-flight activities and running subagents are cancelled."""
        self._cancelled = True
        for task in list(self._in_flight):
            task.cancel()
        self._cancel_children()

    @workflow.query
    def status(self) -> AgentRunStatus:
        return self._status

    @workflow.query
    def history(self) -> list[Message]:
        return self._messages


@workflow.defn(name="AgentRun")
class AgentRunWorkflow(AgentLoop):
    @workflow.run
    async def run(self, start: AgentRunInput) -> AgentRunStatus:
        return await self._execute(start)


def _parallel(call: ToolCallOut, known: dict[str, ToolInfo]) -> bool:
    info = known.get(call.name)
    return (
        info is not None
        and info.capability is Capability.READ_ONLY
        and call.name not in ALWAYS_ALONE
        and call.parse_error is None
    )
