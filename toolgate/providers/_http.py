"""The HTTP part every vendor shares: status codes to errors, Retry-After, JSON bodies."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import httpx

from ._errors import (
    ProviderRateLimited,
    ProviderRejected,
    ProviderResponseInvalid,
    ProviderUnavailable,
)

TIMEOUT = httpx.Timeout(120.0, connect=10.0)


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date)."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


async def post_json(
    client: httpx.AsyncClient, url: str, body: dict[str, Any], headers: dict[str, str]
) -> dict[str, Any]:
    try:
        response = await client.post(url, json=body, headers=headers, timeout=TIMEOUT)
    except httpx.HTTPError as exc:
        raise ProviderUnavailable(f"cannot reach {url}: {type(exc).__name__}: {exc}") from exc
    if response.status_code == 429:
        raise ProviderRateLimited(
            f"{url} answered 429 (rate limited)", retry_after=retry_after(response)
        )
    if response.status_code >= 500:
        raise ProviderUnavailable(f"{url} answered {response.status_code}: {response.text[:300]}")
    if response.status_code >= 400:
        raise ProviderRejected(f"{url} answered {response.status_code}: {response.text[:500]}")
    try:
        data = response.json()
    except ValueError:
        raise ProviderResponseInvalid(
            f"{url} answered {response.status_code} with a body that is not JSON: "
            f"{response.text[:200]!r}"
        ) from None
    if not isinstance(data, dict):
        raise ProviderResponseInvalid(f"{url} answered JSON that is not an object")
    return data
