"""Dependencies as Annotated aliases, as in FastAPI's full-stack template."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from temporalio.client import Client

from ..services import Services
from ..store import Agent
from .errors import ApiError


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def get_temporal(request: Request) -> Client:
    client: Client = request.app.state.temporal
    return client


ServicesDep = Annotated[Services, Depends(get_services)]
TemporalClientDep = Annotated[Client, Depends(get_temporal)]


async def load_agent(services: Services, agent_id: str) -> Agent:
    agent = await services.agents.get(agent_id)
    if agent is None:
        raise ApiError(
            404,
            "agent_not_found",
            f"no agent with id {agent_id!r}; create one with POST /v1/agents",
        )
    return agent
