"""Every API error is JSON ``{"code": ..., "message": ...}`` with a stable code.

The gate's refusal codes map to HTTP statuses here, in one table, so clients can
branch on either.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..tools.errors import InvalidConfig, InvalidSettings

#: Codes of the governance gate that refuse a call before the tool runs.
GATE_STATUS: dict[str, int] = {
    "tool_not_found": 404,
    "tool_not_allowed": 403,
    "invalid_arguments": 422,
    "rate_limited": 429,
    "command_denied": 403,
    "approval_denied": 403,
    "approval_timeout": 403,
    "cli_not_granted": 403,
    "cli_not_alone": 403,
    "cli_args_denied": 403,
}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


def config_error(exc: InvalidConfig) -> ApiError:
    """422 for configuration an admin wrote; names the field when there is one."""
    extra = {"field": exc.field} if isinstance(exc, InvalidSettings) and exc.field else {}
    return ApiError(422, exc.code, exc.message, **extra)


def _body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"code": code, "message": message, **extra}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(_body(exc.code, exc.message, **exc.extra), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return JSONResponse(
                _body("invalid_json", "request body is not valid JSON; send a JSON object"),
                status_code=400,
            )
        details = [
            {"loc": [str(p) for p in e.get("loc", ())], "message": str(e.get("msg", ""))}
            for e in errors
        ]
        where = "; ".join(f"{'/'.join(d['loc'])}: {d['message']}" for d in details[:5])
        return JSONResponse(
            _body("invalid_request", f"request does not match the API schema: {where}",
                  details=details),
            status_code=422,
        )  # fmt: skip

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(_body(code, str(exc.detail)), status_code=exc.status_code)
