from ..wire_server import WireServer, http, wire_server

__all__ = ["WireServer", "http", "wire_server"]
