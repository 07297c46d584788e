"""MCP servers of your tenant (admin): register, change, remove, test (docs/mcp.md).

Registering connects once from the API process and records the tools the server
announces, so they can be granted at once; workers then hold the lasting connections
and report their status here.
"""

from __future__ import annotations

from fastapi import APIRouter, Response

from ...mcp import McpConnectError, announced, probe
from ...store import McpServerRecord, McpServerTaken
from ...tools import McpServerConfig, tool_name
from ..deps import AdminPrincipal, ServicesDep
from ..errors import ApiError
from ..mcp_schemas import (
    McpServerCreated,
    McpServerIn,
    McpServerPublic,
    McpTestResult,
    McpToolPublic,
)

router = APIRouter(prefix="/v1/mcp/servers", tags=["mcp"])


def not_found(server_id: str) -> ApiError:
    return ApiError(
        404,
        "mcp_server_not_found",
        f"no MCP server {server_id!r} in your tenant; list them with GET /v1/mcp/servers",
    )


def public(record: McpServerRecord) -> McpServerPublic:
    tools = [McpToolPublic(name=tool_name(record.tool_prefix, t["name"]), remote_name=t["name"],
                           description=t.get("description", ""), parameters=t["input_schema"])
             for t in record.tools]  # fmt: skip
    fields = {k: getattr(record, k) for k in McpServerPublic.model_fields if k != "tools"}
    return McpServerPublic(**fields, tools=tools)


def _taken(exc: McpServerTaken) -> ApiError:
    code = "mcp_prefix_taken" if "prefix" in str(exc) else "mcp_server_exists"
    return ApiError(409, code, str(exc))


async def _test(services: ServicesDep, tenant_id: str, server_id: str) -> McpTestResult:
    server = await services.mcp_servers.open(tenant_id, server_id)
    if server is None:
        raise not_found(server_id)
    try:
        tools = await probe(server.config)
    except McpConnectError as exc:
        return McpTestResult(ok=False, error=str(exc))
    found = announced(server.config.name, server.config.prefix, tools)
    await services.mcp_servers.record_tools(server.id, found.tools, found.warnings)
    await services.mcp_servers.wake(tenant_id)  # a failed server is tried again
    names = [tool_name(server.config.prefix, t["name"]) for t in found.tools]
    return McpTestResult(ok=True, tools=names, warnings=found.warnings)


@router.post("", status_code=201, response_model=McpServerCreated)
async def create_server(
    body: McpServerIn, services: ServicesDep, principal: AdminPrincipal
) -> McpServerCreated:
    """Register a server, then connect once: ``test`` says what that found."""
    config = McpServerConfig.model_validate(body.model_dump())
    try:
        record = await services.mcp_servers.create(principal.tenant_id, config)
    except McpServerTaken as exc:
        raise _taken(exc) from None
    test = await _test(services, principal.tenant_id, record.id)
    fresh = await services.mcp_servers.get(principal.tenant_id, record.id)
    return McpServerCreated(**public(fresh or record).model_dump(), test=test)


@router.get("", response_model=list[McpServerPublic])
async def list_servers(services: ServicesDep, principal: AdminPrincipal) -> list[McpServerPublic]:
    return [public(r) for r in await services.mcp_servers.all(principal.tenant_id)]


@router.get("/{server_id}", response_model=McpServerPublic)
async def get_server(
    server_id: str, services: ServicesDep, principal: AdminPrincipal
) -> McpServerPublic:
    """The server with its status as workers report it, and its last error."""
    record = await services.mcp_servers.get(principal.tenant_id, server_id)
    if record is None:
        raise not_found(server_id)
    return public(record)


@router.put("/{server_id}", response_model=McpServerPublic)
async def replace_server(
    server_id: str, body: McpServerIn, services: ServicesDep, principal: AdminPrincipal
) -> McpServerPublic:
    """Change a server; workers reconnect with the new config."""
    config = McpServerConfig.model_validate(body.model_dump())
    try:
        record = await services.mcp_servers.replace(principal.tenant_id, server_id, config)
    except McpServerTaken as exc:
        raise _taken(exc) from None
    if record is None:
        raise not_found(server_id)
    return public(record)


@router.delete("/{server_id}", status_code=204)
async def delete_server(
    server_id: str, services: ServicesDep, principal: AdminPrincipal
) -> Response:
    if not await services.mcp_servers.delete(principal.tenant_id, server_id):
        raise not_found(server_id)
    return Response(status_code=204)


@router.post("/{server_id}/test", response_model=McpTestResult)
async def test_server(
    server_id: str, services: ServicesDep, principal: AdminPrincipal
) -> McpTestResult:
    """Connect once: the tool list, or the error. A success also refreshes the tools
    agents see, and sends workers to try a failed server again."""
    return await _test(services, principal.tenant_id, server_id)
