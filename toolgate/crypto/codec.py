"""A Temporal PayloadCodec that encrypts every payload with the key ring.

Installed on every client and worker, so tool arguments and results are ciphertext in
workflow history (at rest on the Temporal server). The key id travels in the payload
metadata, which is how payloads written before a rotation still decode. Headers are
not encoded by the SDK's default codec behaviour; ours carry ids only (CallContext).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter, PayloadCodec

from .keyring import NONCE_BYTES, KeyRing, Sealed

ENCODING = b"binary/encrypted"
_KEY_ID = "encryption-key-id"
_AAD = b"toolgate-payload"


class EncryptionCodec(PayloadCodec):
    def __init__(self, ring: KeyRing) -> None:
        self._ring = ring

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        out = []
        for payload in payloads:
            sealed = self._ring.seal(payload.SerializeToString(), _AAD)
            out.append(
                Payload(
                    metadata={"encoding": ENCODING, _KEY_ID: sealed.key_id.encode()},
                    data=sealed.nonce + sealed.ciphertext,
                )
            )
        return out

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        out = []
        for payload in payloads:
            if payload.metadata.get("encoding") != ENCODING:
                out.append(payload)  # written before encryption was on, or by a peer
                continue
            key_id = payload.metadata[_KEY_ID].decode()
            data = payload.data
            sealed = Sealed(key_id, data[:NONCE_BYTES], data[NONCE_BYTES:])
            out.append(Payload.FromString(self._ring.open(sealed, _AAD)))
        return out


def encrypted_data_converter(ring: KeyRing) -> DataConverter:
    """The pydantic converter every toolgate client and worker uses, encrypted."""
    return dataclasses.replace(pydantic_data_converter, payload_codec=EncryptionCodec(ring))
