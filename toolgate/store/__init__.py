"""Postgres storage (SQLAlchemy 2.0 async, psycopg 3); schema owned by Alembic."""

from .agent_links import AgentLink, AgentLinkStore, DuplicateLink
from .agents import Agent, AgentNameTaken, AgentStore
from .approvals import Approval, PostgresApprovals
from .audit import AuditRecord, PostgresAuditLog
from .child_runs import Admission, ChildRun, ChildRunStore
from .cli_binaries import BinaryNameTaken, CliBinaryInput, CliBinaryRecord, CliBinaryStore
from .config import CachedConfigSource, PostgresConfigSource
from .custom_tools import CustomToolNameTaken, CustomToolRecord, CustomToolStore
from .db import DatabaseUnavailable, create_engine, describe, ping, sessionmaker
from .keys import ApiKey, KeyStore, Principal, Role, User, UserNameTaken, UserStore
from .mcp_grants import (
    AccessRequestRecord,
    GrantRecord,
    GrantRefused,
    McpGrantStore,
    RequestConflict,
)
from .mcp_servers import McpServer, McpServerRecord, McpServerStore, McpServerTaken
from .migrate import upgrade
from .notify import ConfigChange
from .ratelimit import PostgresRateLimiter
from .secrets import SecretInfo, SecretStore
from .sessions import Session, SessionStore
from .teams import BoardEventRecord, Member, Team, TeamNameTaken, TeamStore
from .tenants import MASTER_TENANT, Tenant, TenantExists, TenantStore
from .tool_settings import ToolSettingsStore

__all__ = [
    "MASTER_TENANT",
    "Admission",
    "Agent",
    "AgentLink",
    "AgentLinkStore",
    "AgentNameTaken",
    "AgentStore",
    "ApiKey",
    "Approval",
    "AuditRecord",
    "BinaryNameTaken",
    "CachedConfigSource",
    "ChildRun",
    "ChildRunStore",
    "CliBinaryInput",
    "CliBinaryRecord",
    "CliBinaryStore",
    "ConfigChange",
    "CustomToolNameTaken",
    "CustomToolRecord",
    "CustomToolStore",
    "DatabaseUnavailable",
    "DuplicateLink",
    "KeyStore",
    "AccessRequestRecord",
    "GrantRecord",
    "GrantRefused",
    "McpGrantStore",
    "McpServer",
    "McpServerRecord",
    "McpServerStore",
    "McpServerTaken",
    "RequestConflict",
    "Member",
    "PostgresApprovals",
    "PostgresAuditLog",
    "PostgresConfigSource",
    "PostgresRateLimiter",
    "Principal",
    "Role",
    "SecretInfo",
    "SecretStore",
    "Session",
    "SessionStore",
    "BoardEventRecord",
    "Team",
    "TeamNameTaken",
    "TeamStore",
    "Tenant",
    "TenantExists",
    "TenantStore",
    "ToolSettingsStore",
    "User",
    "UserNameTaken",
    "UserStore",
    "create_engine",
    "describe",
    "ping",
    "sessionmaker",
    "upgrade",
]
