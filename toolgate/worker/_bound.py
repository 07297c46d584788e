"""The base of the tools' worker-side ports (sessions, team boards): built with the
services, bound to the worker's Temporal client when the worker starts, so an API
process (which never runs tools) needs no client for them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from temporalio.client import Client

from ..tools.errors import InfrastructureError

if TYPE_CHECKING:
    from ..services import Services


class WorkerBound:
    what = "these tools"

    def __init__(self) -> None:
        self._services: Services | None = None
        self._client: Client | None = None

    def bind(self, services: Services, client: Client) -> None:
        self._services, self._client = services, client

    def _parts(self) -> tuple[Services, Client]:
        if self._services is None or self._client is None:
            raise InfrastructureError(f"{self.what} run only in a worker")
        return self._services, self._client
