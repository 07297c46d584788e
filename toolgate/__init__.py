"""toolgate: durable, governed tools for AI agents, on Temporal.

The top-level packages follow the architecture (see docs/architecture.md):
``tools`` is the pure domain core; ``activities`` and ``workflows`` run it on
Temporal; ``worker`` hosts them behind the governance interceptor; ``api`` is the
REST front; ``store`` is Postgres; ``devstack`` runs everything on one machine.
"""

__version__ = "0.1.0"
