"""The analyzer: every command the text would run, unwrapped, through every rule.

Wrappers are removed the way the kernel and the shell would: absolute paths become
program names; ``env``, ``nice``, ``timeout``, ``xargs``, ``busybox``, ``sudo`` ...
give way to the program they start; ``sh -c``/``bash -c``/``eval`` strings and what
is piped or fed into a shell are parsed again, at most :data:`MAX_DEPTH` levels deep
(deeper is refused). Inline interpreter code is read for the calls that matter.
"""

from __future__ import annotations

from collections.abc import Callable

from ._findings import UNPARSEABLE, Finding
from ._flow import DECODERS, produced_text
from ._interp import interpreter_findings
from ._programs import program_hits
from ._rules import (
    INTERPRETERS,
    PRIVILEGE,
    SHELLS,
    Hit,
    any_arg_hits,
    env_hits,
    redirect_hits,
)
from ._syntax import Script, ShellSyntaxError, SimpleCommand, Word, parse

MAX_DEPTH = 3
_SKIP_OPTION_VALUE = {
    "env": {"-u", "--unset", "-C", "--chdir", "-S"},
    "nice": {"-n", "--adjustment"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "stdbuf": {"-i", "-o", "-e"},
    "ionice": {"-c", "-n", "-p"},
    "xargs": {"-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E"},
    "sudo": {"-u", "-g", "-U", "-C", "-h", "-p"},
    "doas": {"-u"},
    "chrt": set(),
    "setsid": set(),
}
_PREFIXES = frozenset({"env", "nice", "timeout", "xargs", "busybox", "command", "exec", "nohup",
    "stdbuf", "time", "setsid", "ionice", "taskset", "chrt", "sudo", "doas", "builtin", "nocorrect",
    "noglob", "unbuffer", "torsocks", "proxychains", "proxychains4", "strace", "ltrace", "watch",
    "flock", "caffeinate"})  # fmt: skip


_DECLARATIONS = frozenset({"export", "declare", "typeset", "readonly", "local"})


def _basename(text: str) -> str:
    return text.rstrip("/").rsplit("/", 1)[-1] or text


ScriptReader = Callable[[str], str | None]
"""Reads a script the command would run (a workspace file), or None."""


def _no_files(_path: str) -> str | None:
    return None


class Analyzer:
    def __init__(self, read_script: ScriptReader = _no_files) -> None:
        self.findings: list[Finding] = []
        self._read = read_script
        self._written: dict[str, str | None] = {}
        self.programs: set[str] = set()
        """Every program the text would start, wrappers removed (credentialed CLIs)."""
        """Files this same command line writes before it may run them (path → text)."""

    def text(self, text: str, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            self._add(UNPARSEABLE, f"shell code nested more than {MAX_DEPTH} levels deep", text)
            return
        try:
            script = parse(text)
        except ShellSyntaxError as exc:
            self._add(UNPARSEABLE, str(exc), text)
            return
        self._fork_bombs(script)
        for command in script.commands:
            self.command(command, depth)

    def _add(self, group: str, reason: str, source: str) -> None:
        self.findings.append(Finding(group, reason, source.strip()[:300]))

    def _hits(self, hits: list[Hit], source: str) -> None:
        for group, reason in hits:
            self._add(group, reason, source)

    def _fork_bombs(self, script: Script) -> None:
        for name, body in script.functions.items():
            if sum(1 for c in body if c.name is not None and c.name.text == name) >= 1 and any(
                c.upstream is not None for c in body
            ):
                self._add("destructive_ops", f"function {name!r} forks itself (fork bomb)", name)

    def _remember_writes(self, command: SimpleCommand) -> None:
        for redirect in command.redirects:
            if redirect.op in {">", ">>", ">|", "&>"} and not redirect.target.dynamic:
                self._written[redirect.target.text] = produced_text(command)
        if command.words and _basename(command.words[0].text) == "tee":
            text = produced_text(command.upstream)
            for arg in command.words[1:]:
                if not arg.text.startswith("-"):
                    self._written[arg.text] = text

    def command(self, command: SimpleCommand, depth: int) -> None:
        self._remember_writes(command)
        source = command.source
        self._hits(env_hits(command.assignments), source)
        words = list(command.words)
        if any(w.uses_ifs for w in words):
            self._add("filter_bypass", "uses $IFS to hide word boundaries", source)
        words = self._unwrap(words, source)
        if not words:
            self._hits(redirect_hits(command.redirects, shell=False), source)
            return
        head = words[0]
        if head.dynamic:
            self._add(
                "filter_bypass", f"the program name is only known at run time ({head.text})", source
            )
            return
        name, args = _basename(head.text), words[1:]
        self.programs.add(name)
        if name in _DECLARATIONS:  # `e''xport X=1` is still the export builtin
            pairs = (a.text.split("=", 1)[0] for a in args if "=" in a.text)
            self._hits(env_hits({key: Word("") for key in pairs}), source)
        self._hits(redirect_hits(command.redirects, shell=name in SHELLS), source)
        self._hits(any_arg_hits(args), source)
        self._hits(program_hits(name, args), source)
        if name in SHELLS or (name in {"eval", "source", "."}):
            self._shell(name, args, command, depth)
        elif name in INTERPRETERS:
            self._interpreter(name, args, command, depth)
        elif "/" in head.text:  # ./deploy.sh: a file of the workspace run as a program
            self._script(head.text, None, source, depth)

    def _unwrap(self, words: list[Word], source: str) -> list[Word]:
        """Drop wrappers (env, nice, sudo, ...) until the real program is first."""
        for _ in range(16):
            if not words or words[0].dynamic:
                return words
            name = _basename(words[0].text)
            if name not in _PREFIXES:
                return words
            wrapper = words[0]
            if name in PRIVILEGE or name in {"sudo", "doas"}:
                self._add("privilege_escalation", f"{name} runs a command as another user", source)
            rest = words[1:]
            if name == "command" and rest and rest[0].text in {"-v", "-V"}:
                return []  # a lookup, not a run
            skip_values = _SKIP_OPTION_VALUE.get(name, set())
            while rest and rest[0].text.startswith("-") and rest[0].text != "-":
                option = rest.pop(0).text
                if option == "--":
                    break
                if option in skip_values and rest:
                    rest.pop(0)
            if name == "env":
                while rest and "=" in rest[0].text and not rest[0].text.startswith("="):
                    key = rest.pop(0).text.split("=", 1)[0]
                    self._hits(env_hits({key: Word("")}), source)
            elif name in {"timeout"} and rest:
                rest.pop(0)  # the duration
            elif name in {"taskset", "chrt"} and rest:
                rest.pop(0)  # the mask / priority
            elif name in {"flock"} and rest:
                rest.pop(0)  # the lock file
            elif name == "xargs" and rest:
                rest.append(Word("<stdin>", dynamic=True))  # arguments arrive on stdin
            if not rest:
                return [wrapper]  # `env`, `sudo` alone: judged as themselves
            words = rest
        return words

    def _shell(self, name: str, args: list[Word], command: SimpleCommand, depth: int) -> None:
        source = command.source
        texts = [a.text for a in args]
        if name == "eval":
            code = " ".join(texts)
            if any(a.dynamic for a in args):
                self._add("code_injection", "eval of text only known at run time", source)
            self.text(code, depth + 1)
            return
        if name in {"source", "."}:
            if not args or args[0].dynamic or args[0].text.startswith(("<(", "/dev/")):
                self._add("code_injection", f"{name} of code only known at run time", source)
            else:
                self._script(args[0].text, "sh", source, depth)
            return
        options = [t for t in texts if t.startswith("-") and not t.startswith("--")]
        if any("i" in o[1:] for o in options):
            self._add("reverse_shell", f"{name} -i starts an interactive shell", source)
        with_c = next((i for i, t in enumerate(texts) if t.startswith("-") and "c" in t[1:]
                       and not t.startswith("--")), None)  # fmt: skip
        if with_c is not None:
            if with_c + 1 >= len(args):
                return
            script = args[with_c + 1]
            if script.dynamic:
                self._add("code_injection", f"{name} -c runs code only known at run time", source)
            self.text(script.text, depth + 1)
            return
        files = [a for a in args if not a.text.startswith("-")]
        if files:
            self._script(files[0].text, "sh", source, depth)
            return
        self._stdin(name, command, depth)

    def _stdin(self, name: str, command: SimpleCommand, depth: int) -> None:
        """A shell or interpreter reading its program from stdin."""
        source = command.source
        if command.stdin_text is not None:
            self.text(command.stdin_text, depth + 1) if name in SHELLS else self._code(
                command.stdin_text, source, depth
            )
            return
        upstream = command.upstream
        if upstream is None:
            return
        up_name = _basename(upstream.words[0].text) if upstream.words else ""
        if up_name in {"curl", "wget", "fetch", "http", "aria2c"}:
            self._add("data_exfiltration", f"{up_name} output is run by {name}", source)
            return
        text = produced_text(upstream)
        if up_name in DECODERS or (upstream.upstream is not None and text is not None
                                   and _basename(upstream.words[0].text) in DECODERS):  # fmt: skip
            self._add("filter_bypass", f"decoded text ({up_name}) is run by {name}", source)
        if text is None:
            self._add(
                "code_injection", f"output of {up_name or 'a command'} is run by {name}", source
            )
            return
        if name in SHELLS:
            self.text(text, depth + 1)
        else:
            self._code(text, source, depth)

    def _interpreter(self, name: str, args: list[Word], command: SimpleCommand, depth: int) -> None:
        flags = INTERPRETERS[name]
        texts = [a.text for a in args]
        index = next((i for i, t in enumerate(texts) if t in flags), None)
        if index is None:
            if name.startswith("python") and texts[:2] == ["-m", "pip"] and "install" in texts:
                self._add("package_install", "pip install installs software", command.source)
            files = [t for t in texts if not t.startswith("-")]
            if files:
                self._script(files[0], name, command.source, depth)
            else:
                self._stdin(name, command, depth)
            return
        if index + 1 >= len(args):
            return
        code = args[index + 1]
        if code.dynamic:
            self._add("code_injection", f"{name} runs code only known at run time", command.source)
        self._code(code.text, command.source, depth)

    def _script(self, path: str, runner: str | None, source: str, depth: int) -> None:
        """A script file the command runs: judged by what it says now."""
        for key in (path, path.removeprefix("./")):
            if key in self._written or f"./{key}" in self._written:
                text = self._written.get(key, self._written.get(f"./{key}"))
                if text is None:
                    self._add("code_injection", f"runs {path}, written by this same command "
                              "with content known only at run time", source)  # fmt: skip
                    return
                break
        else:
            text = self._read(path)
        if text is None:
            return  # not a readable workspace file: running it fails or is not ours
        first = text.split("\n", 1)[0]
        if runner is None:
            runner = "sh" if not first.startswith("#!") else _basename(first[2:].split()[-1])
        if runner in SHELLS or runner in {"sh", "env"}:
            self.text(text, depth + 1)
        else:
            self._code(text, source, depth)

    def _code(self, code: str, source: str, depth: int) -> None:
        hits, shell, opaque = interpreter_findings(code)
        self._hits(hits, source)
        if opaque:
            self._add("code_injection", "inline code runs a command only known at run time", source)
        for text in shell:
            self.text(text, depth + 1)


def analyze(text: str, read_script: ScriptReader = _no_files) -> list[Finding]:
    analyzer = Analyzer(read_script)
    analyzer.text(text)
    return analyzer.findings


def programs_in(text: str) -> set[str]:
    """The programs ``text`` would start (after unwrapping), for the credentialed gate."""
    analyzer = Analyzer()
    analyzer.text(text)
    return analyzer.programs


def sole_command(text: str, depth: int = 0) -> list[str] | None:
    """The argv of ``text`` if it is one plain command (through up to 3 ``sh -c``).

    Plain: literal words only, no pipe, redirect, here-document, assignment or
    second command. A credentialed CLI runs only in that shape, straight from argv,
    so no shell ever sees its injected environment.
    """
    if depth > MAX_DEPTH:
        return None
    try:
        script = parse(text)
    except ShellSyntaxError:
        return None
    if len(script.commands) != 1 or script.functions:
        return None
    command = script.commands[0]
    if (command.redirects or command.upstream is not None or command.stdin_text is not None
            or command.assignments or not command.words
            or any(w.dynamic for w in command.words)):  # fmt: skip
        return None
    argv = [w.text for w in command.words]
    name = _basename(argv[0])
    if name in SHELLS and len(argv) == 3 and argv[1] == "-c":
        return sole_command(argv[2], depth + 1)
    return argv
