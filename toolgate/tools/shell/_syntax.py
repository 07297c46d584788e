"""From shell text to simple commands, on a real parse (tree-sitter-bash).

Rules must see what the shell would run, not what the text looks like, so each word
is evaluated the way the shell evaluates it as far as that can be known statically:
quotes removed, backslash escapes applied, ``$'..'`` decoded, concatenations joined,
variables substituted when the script itself assigned them a literal. What cannot be
known (``$HOME``, ``$(cmd)``) makes the word *dynamic*; rules treat a dynamic
command name as an evasion. Commands inside ``$(...)``, ``<(...)``, subshells,
functions, loops and conditionals are collected too: they run as well.

Anything tree-sitter cannot parse cleanly (an ERROR or MISSING node) is a
:class:`ShellSyntaxError`: an unparseable command is refused, never waved through.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

_LANGUAGE = Language(tree_sitter_bash.language())
MAX_COMMAND_CHARS = 64 * 1024


class ShellSyntaxError(ValueError):
    """The text is not a shell command tree-sitter parses without errors."""


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    """The value as far as it is known; unknown parts keep their ``$...`` spelling."""
    dynamic: bool = False
    """Part of the value is only known at run time."""
    uses_ifs: bool = False


@dataclass(slots=True)
class Redirect:
    op: str
    """``>``, ``>>``, ``<``, ``&>``, ``<<``, ``<<<`` ..."""
    target: Word


@dataclass(slots=True)
class SimpleCommand:
    """One command the shell would start, with what feeds its stdin."""

    words: list[Word]
    assignments: dict[str, Word] = field(default_factory=dict)
    redirects: list[Redirect] = field(default_factory=list)
    upstream: SimpleCommand | None = None
    """The command piped into this one, if any."""
    stdin_text: str | None = None
    """A here-document or here-string fed to stdin."""
    source: str = ""

    @property
    def name(self) -> Word | None:
        return self.words[0] if self.words else None

    @property
    def args(self) -> list[Word]:
        return self.words[1:]


@dataclass(slots=True)
class Script:
    commands: list[SimpleCommand] = field(default_factory=list)
    functions: dict[str, list[SimpleCommand]] = field(default_factory=dict)
    """Function name → the commands of its body (fork bombs call themselves)."""


def parse(text: str) -> Script:
    if "\x00" in text:
        raise ShellSyntaxError("the command contains a NUL byte")
    if len(text) > MAX_COMMAND_CHARS:
        raise ShellSyntaxError(f"the command is over {MAX_COMMAND_CHARS} characters")
    tree = Parser(_LANGUAGE).parse(text.encode())
    if tree.root_node.has_error:
        raise ShellSyntaxError("the shell cannot parse this command")
    walker = _Walker(text)
    walker.statement(tree.root_node, walker.script.commands)
    return walker.script


_ESCAPE_IN_DQ = re.compile(r'\\([$`"\\\n])')
_ESCAPE_BARE = re.compile(r"\\(.)", re.S)


def _decode_ansi_c(body: str) -> str:
    try:
        return codecs.decode(body.replace("\\'", "'"), "unicode_escape")
    except UnicodeDecodeError:
        return body


class _Walker:
    def __init__(self, text: str) -> None:
        self.text = text
        self.source = text.encode()
        self.script = Script()
        self.variables: dict[str, Word] = {}

    # --- statements -------------------------------------------------------------

    def statement(self, node: Node, out: list[SimpleCommand]) -> None:
        kind = node.type
        if kind == "command":
            out.append(self.command(node))
        elif kind == "pipeline":
            self.pipeline(node, out)
        elif kind == "redirected_statement":
            self.redirected(node, out)
        elif kind == "variable_assignment":
            name, value = self.assignment(node)
            self.variables[name] = value
            out.append(SimpleCommand(words=[], assignments={name: value}, source=_text(node)))
        elif kind == "declaration_command":
            out.append(self.declaration(node))
        elif kind == "function_definition":
            name = _text(node.child_by_field_name("name") or node.children[0])
            body: list[SimpleCommand] = []
            for child in node.children[1:]:
                self.statement(child, body)
            self.script.functions[name] = body
            out.extend(body)
        elif kind in ("command_substitution", "process_substitution"):
            for child in node.children:
                self.statement(child, out)
        else:  # lists, subshells, loops, conditionals, test commands: walk inside
            for child in node.children:
                if child.is_named:
                    self.statement(child, out)

    def pipeline(self, node: Node, out: list[SimpleCommand]) -> None:
        previous: SimpleCommand | None = None
        for child in node.children:
            if not child.is_named:
                continue
            start = len(out)
            self.statement(child, out)
            added = out[start:]
            if added and previous is not None:
                added[0].upstream = previous
            if added:
                previous = added[-1]

    def redirected(self, node: Node, out: list[SimpleCommand]) -> None:
        start = len(out)
        redirects: list[Redirect] = []
        heredoc: str | None = None
        for child in node.children:
            if child.type in ("file_redirect", "herestring_redirect"):
                redirects.append(self.redirect(child))
            elif child.type == "heredoc_redirect":
                heredoc = self.heredoc(child, out)
            elif child.is_named:
                self.statement(child, out)
        added = out[start:]
        for command in added:
            command.redirects.extend(redirects)
        herestrings = [r.target.text for r in redirects if r.op == "<<<"]
        if added and (heredoc is not None or herestrings):
            added[0].stdin_text = heredoc if heredoc is not None else herestrings[0]

    def heredoc(self, node: Node, out: list[SimpleCommand]) -> str:
        """The body, cut from the source between the start line and the end marker.

        (tree-sitter-bash mis-tokenises some bodies, e.g. one starting with a backslash;
        the bytes between the markers are what the shell reads.)
        """
        start = end = None
        for child in node.children:
            if child.type == "heredoc_start":
                start = child.end_byte
            elif child.type == "heredoc_end":
                end = child.start_byte
            elif child.type == "pipeline":  # `cat <<EOF | sh`: the pipe continues here
                self.pipeline_after(child, out)
        if start is None or end is None:
            return ""
        raw = self.source[start:end]
        newline = raw.find(b"\n")
        return raw[newline + 1 :].decode("utf-8", errors="replace") if newline >= 0 else ""

    def pipeline_after(self, node: Node, out: list[SimpleCommand]) -> None:
        previous = out[-1] if out else None
        for child in node.children:
            if child.is_named:
                start = len(out)
                self.statement(child, out)
                if len(out) > start and previous is not None:
                    out[start].upstream = previous
                    previous = out[-1]

    def command(self, node: Node) -> SimpleCommand:
        command = SimpleCommand(words=[], source=_text(node))
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment":
                name, value = self.assignment(child)
                command.assignments[name] = value
            elif kind == "command_name":
                command.words.append(self.word(child.children[0]))
            elif kind in ("file_redirect", "herestring_redirect"):
                redirect = self.redirect(child)
                command.redirects.append(redirect)
                if redirect.op == "<<<":
                    command.stdin_text = redirect.target.text
            elif child.is_named:
                command.words.append(self.word(child))
        return command

    def declaration(self, node: Node) -> SimpleCommand:
        command = SimpleCommand(words=[Word(_text(node.children[0]))], source=_text(node))
        for child in node.children[1:]:
            if child.type == "variable_assignment":
                name, value = self.assignment(child)
                command.assignments[name] = value
                self.variables[name] = value
                command.words.append(Word(f"{name}={value.text}", value.dynamic))
            elif child.is_named:
                command.words.append(self.word(child))
        return command

    def assignment(self, node: Node) -> tuple[str, Word]:
        name = _text(node.children[0])
        value = self.word(node.children[2]) if len(node.children) > 2 else Word("")
        return name, value

    def redirect(self, node: Node) -> Redirect:
        op, target = "", Word("")
        for child in node.children:
            if not child.is_named or child.type == "file_descriptor":
                op += _text(child) if not child.is_named else ""
            else:
                target = self.word(child)
        return Redirect(op.strip(), target)

    # --- words ---------------------------------------------------------------------

    def word(self, node: Node) -> Word:
        kind = node.type
        if kind in ("word", "number"):
            return Word(_ESCAPE_BARE.sub(r"\1", _text(node)))
        if kind == "raw_string":
            return Word(_text(node)[1:-1])
        if kind == "ansi_c_string":
            return Word(_decode_ansi_c(_text(node)[2:-1]))
        if kind in ("string", "concatenation", "translated_string"):
            parts = [self.word(c) if c.type != "string_content" else _content(c)
                     for c in node.children if c.is_named]  # fmt: skip
            return Word(
                "".join(p.text for p in parts),
                dynamic=any(p.dynamic for p in parts),
                uses_ifs=any(p.uses_ifs for p in parts),
            )
        if kind in ("simple_expansion", "expansion"):
            return self.expansion(node)
        if kind in ("command_substitution", "process_substitution"):
            inner: list[SimpleCommand] = []
            for child in node.children:
                self.statement(child, inner)
            self.script.commands.extend(inner)
            return Word(_text(node), dynamic=True)
        if kind == "arithmetic_expansion":
            return Word(_text(node), dynamic=True)
        return Word(_text(node), dynamic=True)  # anything else: do not guess

    def expansion(self, node: Node) -> Word:
        names = [
            _text(c) for c in node.children if c.type in ("variable_name", "special_variable_name")
        ]
        name = names[0] if names else ""
        if name == "IFS":
            return Word(" ", dynamic=True, uses_ifs=True)
        plain = node.type == "simple_expansion" or _text(node) == "${" + name + "}"
        if plain and name in self.variables and not self.variables[name].dynamic:
            return self.variables[name]
        return Word(_text(node), dynamic=True)


def _content(node: Node) -> Word:
    return Word(_ESCAPE_IN_DQ.sub(r"\1", _text(node)))


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text else ""
