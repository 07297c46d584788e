"""Codec server for the Temporal Web UI and CLI (payloads are encrypted in history).

The protocol is Temporal's: POST ``<endpoint>/decode`` (or ``/encode``) with a JSON
``{"payloads": [...]}`` in protobuf JSON form, answered in the same form. Decoding
shows any tenant's payloads, so it needs a master key. A browser UI without a login
cannot send one; for it, ``toolgate dev`` sets a random per-start token and points the
UI at ``/v1/codec/ui/<token>`` (bound to 127.0.0.1). Operators of a real cluster use
the header form from the CLI (``temporal workflow show --codec-endpoint ...
--codec-auth 'Bearer <master key>'``) or put the UI behind their SSO.
"""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Request, Response
from google.protobuf import json_format
from temporalio.api.common.v1 import Payloads

from ...crypto import EncryptionCodec, KeyRingError
from ..deps import MasterPrincipal, ServicesDep
from ..errors import ApiError

router = APIRouter(prefix="/v1/codec", tags=["codec"])


async def _run(request: Request, services: ServicesDep, action: str) -> Response:
    try:
        payloads = json_format.Parse(await request.body(), Payloads())
    except json_format.ParseError as exc:
        raise ApiError(
            400, "invalid_payloads", f"body is not a Payloads JSON object: {exc}"
        ) from None
    codec = EncryptionCodec(services.ring)
    try:
        if action == "decode":
            result = await codec.decode(payloads.payloads)
        else:
            result = await codec.encode(payloads.payloads)
    except KeyRingError as exc:
        raise ApiError(400, "undecodable_payload", str(exc)) from None
    body = json_format.MessageToJson(Payloads(payloads=result))
    return Response(body, media_type="application/json")


@router.post("/decode")
async def decode(request: Request, services: ServicesDep, _: MasterPrincipal) -> Response:
    """Decrypt payloads (master key)."""
    return await _run(request, services, "decode")


@router.post("/encode")
async def encode(request: Request, services: ServicesDep, _: MasterPrincipal) -> Response:
    """Encrypt payloads (master key), e.g. a signal typed in the UI."""
    return await _run(request, services, "encode")


def _check_token(services: ServicesDep, token: str) -> None:
    expected = services.settings.codec_ui_token
    if not expected or not hmac.compare_digest(expected.encode(), token.encode()):
        raise ApiError(404, "not_found", "no such codec endpoint")


@router.post("/ui/{token}/decode", include_in_schema=False)
async def ui_decode(token: str, request: Request, services: ServicesDep) -> Response:
    _check_token(services, token)
    return await _run(request, services, "decode")


@router.post("/ui/{token}/encode", include_in_schema=False)
async def ui_encode(token: str, request: Request, services: ServicesDep) -> Response:
    _check_token(services, token)
    return await _run(request, services, "encode")
