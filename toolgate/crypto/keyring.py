"""AES-256-GCM with key ids, so keys can rotate without a flag day.

TOOLGATE_SECRET_KEYS holds ``<key id>:<base64 of 32 bytes>`` entries separated by
commas. The first entry encrypts; every entry decrypts. Rotation: put a new key first,
keep the old one after it, run ``toolgate rotate-key``, then drop the old one.

Every ciphertext is bound to where it belongs through the associated data (for a
secret: tenant and name), so a row copied to another tenant does not decrypt.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_KEY_ID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
NONCE_BYTES = 12


class KeyRingError(ValueError):
    """The key ring is malformed or does not decrypt what it should."""


def generate_key(key_id: str = "") -> str:
    """A fresh ring entry, ``<id>:<base64 key>``, for TOOLGATE_SECRET_KEYS."""
    key_id = key_id or f"k{secrets.token_hex(4)}"
    return f"{key_id}:{base64.b64encode(AESGCM.generate_key(bit_length=256)).decode()}"


@dataclass(frozen=True, slots=True)
class Sealed:
    key_id: str
    nonce: bytes
    ciphertext: bytes


class KeyRing:
    def __init__(self, keys: list[tuple[str, bytes]]) -> None:
        if not keys:
            raise KeyRingError(
                "no encryption key configured; set TOOLGATE_SECRET_KEYS "
                "(make one with `toolgate gen-key`)"
            )
        self._keys = {kid: AESGCM(key) for kid, key in keys}
        self.active = keys[0][0]

    @classmethod
    def parse(cls, text: str) -> KeyRing:
        keys: list[tuple[str, bytes]] = []
        for n, entry in enumerate(e.strip() for e in text.split(",") if e.strip()):
            kid, sep, encoded = entry.partition(":")
            if not sep or not _KEY_ID.match(kid):
                raise KeyRingError(
                    f"TOOLGATE_SECRET_KEYS entry {n + 1} is not '<key id>:<base64 key>'"
                )
            try:
                key = base64.b64decode(encoded, validate=True)
            except (binascii.Error, ValueError):
                raise KeyRingError(f"key {kid!r} is not valid base64") from None
            if len(key) != 32:
                raise KeyRingError(f"key {kid!r} is {len(key)} bytes; AES-256 needs 32")
            if any(kid == k for k, _ in keys):
                raise KeyRingError(f"key id {kid!r} appears twice in TOOLGATE_SECRET_KEYS")
            keys.append((kid, key))
        return cls(keys)

    @property
    def key_ids(self) -> list[str]:
        return list(self._keys)

    def __contains__(self, key_id: object) -> bool:
        return key_id in self._keys

    def seal(self, plaintext: bytes, aad: bytes) -> Sealed:
        nonce = os.urandom(NONCE_BYTES)
        return Sealed(self.active, nonce, self._keys[self.active].encrypt(nonce, plaintext, aad))

    def open(self, sealed: Sealed, aad: bytes) -> bytes:
        cipher = self._keys.get(sealed.key_id)
        if cipher is None:
            raise KeyRingError(
                f"data is encrypted with key {sealed.key_id!r}, which is not in "
                "TOOLGATE_SECRET_KEYS; add it back (after the active key) to read it"
            )
        try:
            return cipher.decrypt(sealed.nonce, sealed.ciphertext, aad)
        except InvalidTag:
            raise KeyRingError(
                f"key {sealed.key_id!r} does not decrypt this data: the key is wrong "
                "or the data was tampered with"
            ) from None
