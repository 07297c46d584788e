"""The policy engine: which tools reach an agent's LLM (spec §6).

Three layers of lists feed one pipeline: the platform's (``global``, master scope),
the tenant's, and the agent's. Each has the same shape (:class:`ToolPolicy`); a step
reads the layers that apply to it, in order global → tenant → agent::

    1  profile            agent ?? tenant ?? global ?? "full"  -> starting set
    2  provider_profile   the provider's profile, if one is set, replaces the set
    3  global_allow       global.allow ∩ tenant.allow          (intersection)
    4  provider_allow     global/tenant provider_allow[provider] ∩
    5  agent_allow        agent.allow ∩
    6  agent_provider     agent.provider_allow[provider] ∩
    7  group_allow        group_allow["<channel>:<chat_id>"] of any layer ∩
       deny               global.deny, tenant.deny, agent.deny removed
       also_allow         union of every layer's also_allow (additive)
       subagent_deny      when the call comes from a subagent (depth > 0)
       leaf_deny          at the maximum spawn depth (default 1: spawn, delegate)
       request_allow      the channel's per-request list ∩ (last word)

An unset allow list (None) does not filter; an empty one removes everything. Every
step records what it removed or added, so ``explain`` can say which step decided.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._groups import PROFILES, GroupCatalog, list_problems
from ._registry import Registry
from .errors import PolicyTooLarge, ToolNotAllowed, UnknownProfile

DEFAULT_MAX_SPAWN_DEPTH = 1
DEFAULT_LEAF_DENY = ("spawn", "delegate")

_Lists = Mapping[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """The lists of one layer. Stored as JSON on the platform, tenant and agent rows."""

    profile: str | None = None
    provider_profiles: Mapping[str, str] = field(default_factory=dict)
    allow: tuple[str, ...] | None = None
    provider_allow: _Lists = field(default_factory=dict)
    deny: tuple[str, ...] = ()
    also_allow: tuple[str, ...] = ()
    subagent_deny: tuple[str, ...] = ()
    leaf_deny: tuple[str, ...] | None = None
    """None: the default (spawn, delegate) when no layer sets one."""
    group_allow: _Lists = field(default_factory=dict)
    """Per chat group, keyed ``<channel>:<chat_id>`` (spec step 7)."""
    groups: _Lists = field(default_factory=dict)
    """Groups this layer defines, usable as ``group:<name>``; may nest."""
    max_spawn_depth: int | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> ToolPolicy:
        """Build from stored JSON (already validated when it was written)."""
        if not data:
            return cls()

        def lists(key: str) -> dict[str, tuple[str, ...]]:
            return {k: tuple(v) for k, v in (data.get(key) or {}).items()}

        def opt(key: str) -> tuple[str, ...] | None:
            value = data.get(key)
            return None if value is None else tuple(value)

        return cls(
            profile=data.get("profile"),
            provider_profiles=dict(data.get("provider_profiles") or {}),
            allow=opt("allow"),
            provider_allow=lists("provider_allow"),
            deny=tuple(data.get("deny") or ()),
            also_allow=tuple(data.get("also_allow") or ()),
            subagent_deny=tuple(data.get("subagent_deny") or ()),
            leaf_deny=opt("leaf_deny"),
            group_allow=lists("group_allow"),
            groups=lists("groups"),
            max_spawn_depth=data.get("max_spawn_depth"),
        )

    def lists(self) -> Iterable[tuple[str, tuple[str, ...]]]:
        """Every list of this layer with a name for messages."""
        for name in ("allow", "deny", "also_allow", "subagent_deny", "leaf_deny"):
            value = getattr(self, name)
            if value is not None:
                yield name, value
        for name in ("provider_allow", "group_allow", "groups"):
            for key, value in getattr(self, name).items():
                yield f"{name}.{key}", value


@dataclass(frozen=True, slots=True)
class PolicyInputs:
    """Everything stored that the pipeline reads for one agent."""

    tenant_id: str
    agent_id: str
    agent: ToolPolicy
    tenant: ToolPolicy = ToolPolicy()
    platform: ToolPolicy = ToolPolicy()


@dataclass(frozen=True, slots=True)
class PolicyRequest:
    """What varies per call: the provider, the chat, the depth, the channel's list."""

    provider: str = ""
    channel: str = ""
    chat_id: str = ""
    subagent_depth: int = 0
    request_allow: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    detail: str
    removed: frozenset[str] = frozenset()
    added: frozenset[str] = frozenset()
    start: frozenset[str] | None = None
    """Set on the steps that replace the whole set (profiles)."""


@dataclass(frozen=True, slots=True)
class Resolution:
    tools: frozenset[str]
    steps: tuple[Step, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Explanation:
    tool: str
    reaches_llm: bool
    decided_by: str
    """The step that last admitted or removed the tool (or ``registry``)."""
    reason: str
    trace: tuple[str, ...]
    """Every step that touched this tool, in order."""


def check_policy_shape(policy: ToolPolicy, where: str) -> None:
    """Raise on what must not be stored: unknown profiles, oversized lists."""
    for profile in (policy.profile, *policy.provider_profiles.values()):
        if profile is not None and profile not in PROFILES:
            raise UnknownProfile(
                f"{where}: unknown profile {profile!r}; use one of {', '.join(PROFILES)}"
            )
    problems = [p for name, v in policy.lists() for p in list_problems(v, f"{where}.{name}")]
    if policy.max_spawn_depth is not None and not 0 <= policy.max_spawn_depth <= 5:
        problems.append(f"{where}.max_spawn_depth must be 0..5")
    if len(policy.groups) > 100:
        problems.append(f"{where}.groups defines {len(policy.groups)} groups; at most 100")
    if problems:
        raise PolicyTooLarge("; ".join(problems))


def catalog_for(inputs: PolicyInputs, registry: Registry) -> GroupCatalog:
    """Defined groups: the tenant's override the platform's of the same name."""
    return GroupCatalog(registry, {**inputs.platform.groups, **inputs.tenant.groups})


def resolve(
    inputs: PolicyInputs,
    registry: Registry,
    request: PolicyRequest = PolicyRequest(),
    catalog: GroupCatalog | None = None,
) -> Resolution:
    """Run the pipeline; the result lists the tools that reach the LLM and why."""
    catalog = catalog or catalog_for(inputs, registry)
    return _Pipeline(inputs, catalog, request).run()


def explain(resolution: Resolution, registry: Registry, tool: str) -> Explanation:
    """Why ``tool`` does or does not reach the LLM, from a finished resolution."""
    if tool not in registry:
        return Explanation(
            tool, False, "registry", f"{tool!r} is not a registered tool", ("registry: absent",)
        )
    present = False
    decided_by, reason, trace = "registry", "", []
    for step in resolution.steps:
        if step.start is not None:
            present = tool in step.start
            verb = "admitted by" if present else "not in"
            decided_by, reason = step.name, f"{verb} {step.detail}"
            trace.append(f"{step.name}: {'in' if present else 'not in'} {step.detail}")
        elif present and tool in step.removed:
            present = False
            decided_by, reason = step.name, f"removed by {step.detail}"
            trace.append(f"{step.name}: removed by {step.detail}")
        elif not present and tool in step.added:
            present = True
            decided_by, reason = step.name, f"added by {step.detail}"
            trace.append(f"{step.name}: added by {step.detail}")
    return Explanation(tool, present, decided_by, reason, tuple(trace))


def check_allowed(resolution: Resolution, tool_name: str, agent_id: str) -> None:
    """Raise ToolNotAllowed unless ``tool_name`` is in the resolved list."""
    if tool_name not in resolution.tools:
        raise ToolNotAllowed(
            f"tool {tool_name!r} is not allowed for agent {agent_id}; "
            f"see why with GET /v1/agents/{agent_id}/tools?explain=true&tool={tool_name}"
        )


class _Pipeline:
    def __init__(self, inputs: PolicyInputs, catalog: GroupCatalog, req: PolicyRequest) -> None:
        self.layers = (
            ("global", inputs.platform),
            ("tenant", inputs.tenant),
            ("agent", inputs.agent),
        )
        self.agent = inputs.agent
        self.catalog, self.req = catalog, req
        self.steps: list[Step] = []
        self.warnings: list[str] = []
        self.tools: set[str] = set()

    def expand(self, entries: Iterable[str], where: str) -> set[str]:
        result = self.catalog.expand(entries)
        self.warnings.extend(f"{where}: {w}" for w in result.warnings)
        return result.names

    def start(self, name: str, profile: str, where: str) -> None:
        entries = PROFILES.get(profile)
        if entries is None:  # refused on write; fail closed if one slipped in
            self.warnings.append(f"{where}: unknown profile {profile!r}; no tools")
            entries = ()
        self.tools = self.expand(entries, where)
        self.steps.append(Step(name, f"{where} profile {profile!r}", start=frozenset(self.tools)))

    def keep(self, name: str, entries: Iterable[str], where: str) -> None:
        removed = self.tools - self.expand(entries, where)
        self.tools -= removed
        self.steps.append(Step(name, where, removed=frozenset(removed)))

    def drop(self, name: str, entries: Iterable[str], where: str) -> None:
        removed = self.tools & self.expand(entries, where)
        self.tools -= removed
        self.steps.append(Step(name, where, removed=frozenset(removed)))

    def run(self) -> Resolution:
        req, provider = self.req, self.req.provider
        scope, profile = next(
            ((s, p.profile) for s, p in reversed(self.layers) if p.profile), ("default", "full")
        )
        self.start("profile", profile, scope)
        if provider:
            for s, p in reversed(self.layers):
                if provider in p.provider_profiles:
                    where = f"{s} provider_profiles[{provider!r}]"
                    self.start("provider_profile", p.provider_profiles[provider], where)
                    break
        for s, p in self.layers[:2]:
            if p.allow is not None:
                self.keep("global_allow", p.allow, f"{s} allow list")
        for s, p in self.layers[:2]:
            if provider in p.provider_allow:
                self.keep("provider_allow", p.provider_allow[provider], f"{s} provider_allow")
        if self.agent.allow is not None:
            self.keep("agent_allow", self.agent.allow, "agent allow list")
        if provider in self.agent.provider_allow:
            entries = self.agent.provider_allow[provider]
            self.keep("agent_provider_allow", entries, f"agent provider_allow[{provider!r}]")
        chat = f"{req.channel}:{req.chat_id}"
        for s, p in self.layers:
            if req.channel and chat in p.group_allow:
                self.keep("group_allow", p.group_allow[chat], f"{s} group_allow[{chat!r}]")
        for s, p in self.layers:
            if p.deny:
                self.drop(f"{s}_deny", p.deny, f"{s} deny list")
        for s, p in self.layers:
            if p.also_allow:
                added = self.expand(p.also_allow, f"{s} also_allow") - self.tools
                self.tools |= added
                self.steps.append(Step("also_allow", f"{s} also_allow", added=frozenset(added)))
        self._subagent()
        if req.request_allow is not None:
            self.keep("request_allow", req.request_allow, "the request's allow list")
        return Resolution(frozenset(self.tools), tuple(self.steps), tuple(self.warnings))

    def _subagent(self) -> None:
        depth = self.req.subagent_depth
        if depth <= 0:
            return
        for s, p in self.layers:
            if p.subagent_deny:
                self.drop("subagent_deny", p.subagent_deny, f"{s} subagent deny list")
        max_depth = next(
            (p.max_spawn_depth for _, p in reversed(self.layers) if p.max_spawn_depth is not None),
            DEFAULT_MAX_SPAWN_DEPTH,
        )
        if depth >= max_depth:
            leaf = [(s, p.leaf_deny) for s, p in self.layers if p.leaf_deny is not None]
            for s, entries in leaf or [("default", DEFAULT_LEAF_DENY)]:
                self.drop("leaf_deny", entries, f"{s} leaf deny list (depth {depth})")


def policy_warnings(policy: ToolPolicy, catalog: GroupCatalog, where: str) -> list[str]:
    """Entries that name nothing, and group loops: reported, never fatal."""
    warnings: list[str] = []
    for name, entries in policy.lists():
        warnings.extend(f"{where}.{name}: {w}" for w in catalog.expand(entries).warnings)
    return warnings
