from __future__ import annotations

from fastapi import APIRouter, Query

from ..deps import CurrentPrincipal, ServicesDep, load_agent
from ..schemas import AuditPublic

router = APIRouter(prefix="/v1/audit", tags=["audit"])


@router.get("", response_model=list[AuditPublic])
async def list_audit(
    services: ServicesDep,
    principal: CurrentPrincipal,
    agent_id: str,
    limit: int = Query(default=50, ge=1, le=500),
) -> list[AuditPublic]:
    """The most recent governed calls of an agent, newest first (scrubbed)."""
    agent = await load_agent(services, principal, agent_id)
    records = await services.audit.list(agent.tenant_id, agent.id, limit)
    return [AuditPublic.model_validate(r) for r in records]
