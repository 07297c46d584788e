"""Postgres storage (SQLAlchemy 2.0 async, psycopg 3); schema owned by Alembic."""

from .agents import Agent, AgentNameTaken, AgentStore
from .audit import AuditRecord, PostgresAuditLog
from .db import DatabaseUnavailable, create_engine, describe, ping, sessionmaker
from .migrate import upgrade
from .ratelimit import PostgresRateLimiter

__all__ = [
    "Agent",
    "AgentNameTaken",
    "AgentStore",
    "AuditRecord",
    "DatabaseUnavailable",
    "PostgresAuditLog",
    "PostgresRateLimiter",
    "create_engine",
    "describe",
    "ping",
    "sessionmaker",
    "upgrade",
]
