"""Retry policy by capability (DESIGN §2).

Tool-level failures are results, not exceptions, so these policies only ever see
infrastructure failures (database down, worker lost). A read-only call is safe to
repeat, so it retries with backoff; a mutating, async or exec call could do its side
effect twice, so it runs at most once unless the tool declares itself idempotent.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy

from ..tools import Capability

# Errors that no retry can fix: the worker is misconfigured or the input is bad.
NON_RETRYABLE = ["GovernanceMissing", "MissingCallContext", "InvalidToolCall"]


def retry_policy_for(capability: Capability, idempotent: bool = False) -> RetryPolicy:
    if capability is Capability.READ_ONLY or idempotent:
        return RetryPolicy(
            initial_interval=timedelta(seconds=1),
            backoff_coefficient=2.0,
            maximum_interval=timedelta(seconds=30),
            maximum_attempts=5,
            non_retryable_error_types=NON_RETRYABLE,
        )
    return RetryPolicy(maximum_attempts=1, non_retryable_error_types=NON_RETRYABLE)
