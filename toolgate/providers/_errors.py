"""Provider failures, split by what a retry can do about them.

ProviderError                 base
├── ProviderUnavailable       network error, 5xx: retry with backoff
│   └── ProviderRateLimited   429: retry after ``retry_after`` seconds when given
├── ProviderRejected          4xx other than 429: the request is wrong; never retried
├── ProviderResponseInvalid   the body is not what the wire format promises
└── ProviderNotConfigured     no key / unknown provider: fix the config first
"""

from __future__ import annotations


class ProviderError(Exception):
    code = "provider_error"
    retryable = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ProviderUnavailable(ProviderError):
    code = "provider_unavailable"
    retryable = True


class ProviderRateLimited(ProviderUnavailable):
    code = "provider_rate_limited"

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ProviderRejected(ProviderError):
    code = "provider_rejected"


class ProviderResponseInvalid(ProviderError):
    code = "provider_response_invalid"
    retryable = True
    """A garbled body may be a one-off (a proxy, a truncated stream): retry a few times."""


class ProviderNotConfigured(ProviderError):
    code = "provider_not_configured"
