"""Encryption at rest: the AES-256-GCM key ring and the Temporal payload codec.

One key ring (TOOLGATE_SECRET_KEYS) serves both the secrets table and workflow
history, so rotating a key is one operation for the operator.
"""

from .codec import ENCODING, EncryptionCodec, encrypted_data_converter
from .keyring import KeyRing, KeyRingError, generate_key

__all__ = [
    "ENCODING",
    "EncryptionCodec",
    "KeyRing",
    "KeyRingError",
    "encrypted_data_converter",
    "generate_key",
]
