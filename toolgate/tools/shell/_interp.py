"""Code given inline to an interpreter (python -c, perl -e, node -e, ...).

There is no parser for every language here; the checks look for the calls that
matter (run a shell command, open a socket to a shell, dump the environment, run
decoded code) and hand the shell strings they pass back to the shell analyzer.
"""

from __future__ import annotations

import codecs
import re

from ._rules import Hit

_EXEC_CALL = re.compile(
    r"(os\.system|os\.popen|os\.exec\w*|subprocess\.\w+|commands\.getoutput|pty\.spawn|"
    r"child_process\.\w+|\bexecSync|\bspawnSync|\bexecFileSync|\bsystem|\bshell_exec|\bpassthru|"
    r"\bpopen|\bproc_open|IO\.popen|Kernel\.exec|\bexec)\s*\("
)
_STRING = re.compile(r"""'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)\"""")
_BACKTICKS = re.compile(r"`([^`]*)`")
_SOCKET = re.compile(
    r"socket|fsockopen|IO::Socket|TCPSocket|net\.(connect|Socket|createConnection)"
)
_SHELLISH = re.compile(r"dup2|pty|/bin/(ba)?sh|subprocess|child_process|exec|\bsh\b|cmd\.exe")
_ENV_DUMP = re.compile(
    r"(os\.environ(?!\s*\[|\s*\.get\b)|process\.env(?!\s*[.\[])|%ENV|ENV\.to_h|getenv\(\s*\))"
)
_DECODED_EXEC = re.compile(
    r"(exec|eval|Function)\s*\(.*(b64decode|base64|decode|fromCharCode|urlopen|requests\.get|"
    r"atob|Buffer\.from|unhexlify|input\(|stdin)",
    re.S,
)


def _unescape(literal: str) -> str:
    """A string literal's value (Python/JS/Perl escapes agree on the common ones)."""
    try:
        return codecs.decode(literal, "unicode_escape")
    except UnicodeDecodeError:
        return literal


def _call_arguments(code: str, start: int) -> str:
    depth, i = 1, start
    while i < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        i += 1
    return code[start : i - 1]


def interpreter_findings(code: str) -> tuple[list[Hit], list[str], bool]:
    """(hits, shell commands the code runs, whether it runs one we cannot read)."""
    hits: list[Hit] = []
    shell: list[str] = []
    opaque = False
    if _SOCKET.search(code) and _SHELLISH.search(code):
        hits.append(("reverse_shell", "inline code connects a socket to a shell"))
    if _ENV_DUMP.search(code):
        hits.append(("env_dump", "inline code dumps the environment"))
    if _DECODED_EXEC.search(code):
        hits.append(("code_injection", "inline code runs decoded or downloaded code"))
    if re.search(r"setuid\(\s*0\s*\)|setreuid\(\s*0", code):
        hits.append(("privilege_escalation", "inline code switches to root"))
    if re.search(r"rmtree\(\s*['\"](/|~)['\"]", code):
        hits.append(("destructive_ops", "inline code deletes a root directory tree"))
    for match in _EXEC_CALL.finditer(code):
        inside = _call_arguments(code, match.end())
        strings = [_unescape(a or b) for a, b in _STRING.findall(inside)]
        if not strings:
            opaque = True
        elif inside.lstrip().startswith("["):
            shell.append(" ".join(strings))
        else:
            shell.extend(strings)
    shell.extend(_BACKTICKS.findall(code))
    return hits, shell, opaque
