from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from temporalio.api.workflowservice.v1 import GetSystemInfoRequest

from ...store import DatabaseUnavailable, ping
from ..deps import ServicesDep, TemporalClientDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz(services: ServicesDep, temporal: TemporalClientDep) -> JSONResponse:
    """Liveness of the API and its two dependencies; 503 when either is down."""
    checks: dict[str, str] = {}
    try:
        await ping(services.engine)
        checks["database"] = "ok"
    except DatabaseUnavailable as exc:
        checks["database"] = str(exc)
    try:
        await temporal.workflow_service.get_system_info(GetSystemInfoRequest(), timeout=None)
        checks["temporal"] = "ok"
    except Exception as exc:
        checks["temporal"] = f"unreachable: {exc}"
    healthy = all(v == "ok" for v in checks.values())
    return JSONResponse(
        {"status": "ok" if healthy else "degraded", **checks}, status_code=200 if healthy else 503
    )
