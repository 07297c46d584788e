"""The TeamBoard's activities: its Postgres mirror and the delivery of its notices."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel
from temporalio import activity
from temporalio.client import Client

from ..tools.team import BoardEvent, Task

if TYPE_CHECKING:
    from ..services import Services


class BoardMirror(BaseModel):
    team_id: str
    tasks: list[Task]
    events: list[BoardEvent]


class BoardDelivery(BaseModel):
    tenant_id: str
    messages: list[tuple[str, str]]
    """(session id, text), in the board's order."""


class TeamActivities:
    def __init__(self, services: Services, client: Client) -> None:
        self._services = services
        self._client = client

    @activity.defn(name="BoardMirror")
    async def mirror(self, change: BoardMirror) -> None:
        await self._services.teams.mirror(change.team_id, change.tasks, change.events)

    @activity.defn(name="BoardDeliver")
    async def deliver(self, delivery: BoardDelivery) -> None:
        """Each message to its session: the running run hears it, or a run starts."""
        from ..conversations import deliver  # imports the workflows

        for session_id, text in delivery.messages:
            session = await self._services.sessions_store.get(delivery.tenant_id, session_id)
            if session is not None:
                await deliver(self._services, self._client, session, text)
