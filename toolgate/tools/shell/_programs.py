"""Rules keyed by program name: what each well-known program may not be asked to do."""

from __future__ import annotations

import re

from ._rules import (
    DISK,
    DNS,
    ESCAPE,
    MINERS,
    NETWORK_RECON,
    PACKAGE_VERBS,
    POWER,
    PRIVILEGE,
    REVERSE_TOOLS,
    Hit,
    flags,
    normalise_path,
    path_hits,
    positional,
)
from ._syntax import Word

_WRITE_LAST = frozenset({"cp", "mv", "install", "ln", "rsync"})
_WRITE_ALL = frozenset({"touch", "mkdir", "truncate", "chmod", "chown", "chgrp", "rmdir", "unlink",
                        "tee", "rm", "shred", "sed", "perl", "patch", "dd"})  # fmt: skip


def _targets(name: str, args: list[Word]) -> list[Word]:
    """The paths a file-writing program writes to."""
    plain = positional(args)
    if name == "dd":
        return [Word(a.text[3:], a.dynamic) for a in args if a.text.startswith("of=")]
    if name == "sed" or name == "perl":
        if not any(a.text.startswith("-i") or a.text == "--in-place" for a in args):
            return []
        return plain[1:] if name == "sed" else plain
    if name in ("chmod", "chown", "chgrp"):
        return plain[1:]
    if name in _WRITE_LAST:
        return plain[-1:] if len(plain) >= 2 else []
    return plain


def _rm(args: list[Word]) -> list[Hit]:
    opts = flags(args)
    recursive = bool({"r", "R", "--recursive"} & opts)
    if "--no-preserve-root" in opts:
        return [("destructive_ops", "rm --no-preserve-root")]
    if not recursive:
        return []
    for target in positional(args):
        text = normalise_path(target.text)
        if target.dynamic:
            return [("destructive_ops", f"recursive rm of a path known only at run time ({text})")]
        parts = text.split("/")
        if (text.startswith(("/", "~")) or text in {".", "*", "./", "./*", ".*"}
                or ".." in parts or text.startswith("*")):  # fmt: skip
            return [("destructive_ops", f"recursive rm of {text}")]
    return []


def _kill(args: list[Word]) -> list[Hit]:
    texts = [a.text for a in args]
    strong = any(t in {"-9", "-KILL", "-SIGKILL", "-s9"} for t in texts) or any(
        a == "-s" and b.upper() in {"9", "KILL", "SIGKILL"}
        for a, b in zip(texts, texts[1:], strict=False)
    )
    pids = [t for t in texts if re.fullmatch(r"-?\d+", t) and t not in {"-9"}]
    if any(p in {"-1", "1"} for p in pids):
        return [("process_control", "signals every process (pid -1) or init (pid 1)")]
    if strong and pids:
        return [("process_control", f"kill -9 of process {pids[0]}")]
    return []


def _curl(name: str, args: list[Word]) -> list[Hit]:
    texts = [a.text for a in args]
    upload = {"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-F", "--form",
              "-T", "--upload-file", "--json", "--post-data", "--post-file", "--body-data",
              "--body-file"}  # fmt: skip
    if any(t.split("=", 1)[0] in upload for t in texts):
        return [("data_exfiltration", f"{name} sends data to a server")]
    methods = [
        b.upper()
        for a, b in zip(texts, texts[1:], strict=False)
        if a in {"-X", "--request", "--method"}
    ]
    methods += [
        t.split("=", 1)[1].upper() for t in texts if t.startswith(("--method=", "--request="))
    ]
    if {"POST", "PUT", "PATCH"} & set(methods):
        return [("data_exfiltration", f"{name} sends data to a server ({methods[0]})")]
    return []


def _dns(args: list[Word]) -> list[Hit]:
    for arg in positional(args):
        labels = arg.text.split(".")
        if arg.dynamic or any(len(label) > 40 for label in labels) or len(labels) > 8:
            return [("data_exfiltration", f"DNS query that can carry data ({arg.text})")]
    return []


def _chmod(args: list[Word]) -> list[Hit]:
    plain = positional(args)
    mode = plain[0].text if plain else ""
    if re.search(r"[ugoa]*\+[rwxX]*s", mode) or re.fullmatch(r"[2467][0-7]{3}", mode):
        return [("privilege_escalation", f"chmod {mode} sets the setuid/setgid bit")]
    return []


def _shell_dump(name: str, args: list[Word]) -> list[Hit]:
    texts = [a.text for a in args]
    if name in {"env", "printenv"} and all(t.startswith("-") for t in texts):
        return [("env_dump", f"{name} prints the whole environment")]
    if name == "export" and (not texts or texts == ["-p"]):
        return [("env_dump", "export prints the whole environment")]
    if name in {"declare", "typeset"} and texts and set(texts) <= {"-x", "-p", "-px", "-xp"}:
        return [("env_dump", f"{name} {' '.join(texts)} prints the environment")]
    if name == "set" and not texts:
        return [("env_dump", "set prints every variable")]
    return []


def program_hits(name: str, args: list[Word]) -> list[Hit]:
    """Every rule that applies to running ``name`` with ``args``."""
    hits: list[Hit] = []
    texts = [a.text for a in args]
    sub = next((t for t in texts if not t.startswith("-")), "")
    if name in NETWORK_RECON:
        hits.append(("network_recon", f"{name} is a network scanner"))
    if name in MINERS:
        hits.append(("crypto_mining", f"{name} is a cryptocurrency miner"))
    if name in REVERSE_TOOLS:
        hits.append(("reverse_shell", f"{name} opens raw network connections"))
    if name in PRIVILEGE:
        hits.append(("privilege_escalation", f"{name} changes user or privileges"))
    if name in ESCAPE or (name in {"mount", "umount"} and args):
        hits.append(("container_escape", f"{name} can leave the container's isolation"))
    if (
        name in POWER
        or (name == "init" and sub in {"0", "6"})
        or (name == "systemctl" and sub in {"poweroff", "reboot", "halt", "kexec"})
    ):
        hits.append(("destructive_ops", f"{name} stops or restarts the machine"))
    if name in DISK or name.startswith("mkfs."):
        hits.append(("destructive_ops", f"{name} destroys disk or file contents"))
    if name in {"killall", "pkill", "killall5"}:
        hits.append(("process_control", f"{name} kills processes by name"))
    if name in {"docker", "podman"} and ({"--privileged", "--pid=host", "--net=host"} & set(texts)
                                         or any(t.startswith("/:") for t in texts)):  # fmt: skip
        hits.append(("container_escape", f"{name} with host access"))
    if name == "sysctl" and {"w", "--write"} & flags(args):
        hits.append(("container_escape", "sysctl -w changes kernel parameters"))
    if name == "crontab" and not ({"l"} & flags(args) and len(texts) == 1):
        hits.append(("persistence", "crontab changes scheduled jobs"))
    if name == "systemctl" and sub in {"enable", "link", "preset", "reenable"}:
        hits.append(("persistence", f"systemctl {sub} makes a unit start at boot"))
    if name in {"at", "batch", "update-rc.d", "chkconfig", "launchctl"}:
        hits.append(("persistence", f"{name} schedules or installs a service"))
    if (
        name in {"chown", "chgrp"}
        and positional(args)
        and positional(args)[0].text.startswith("root")
    ):
        hits.append(("privilege_escalation", f"{name} gives files to root"))
    if name == "chmod":
        hits.extend(_chmod(args))
    if name == "rm":
        hits.extend(_rm(args))
    if name == "kill":
        hits.extend(_kill(args))
    if name in {"curl", "wget", "http", "https", "wget2"}:
        hits.extend(_curl(name, args))
    if name in {"scp", "sftp"} or (
        name == "rsync" and any(re.match(r"^[\w.@-]+:", t) for t in texts)
    ):
        hits.append(("data_exfiltration", f"{name} copies files to another host"))
    if name in DNS:
        hits.extend(_dns(args))
    if name == "find" and ("-delete" in texts or any(t in {"-exec", "-execdir"} for t in texts)):
        roots = [t for t in texts[:1] if not t.startswith("-")]
        if roots and normalise_path(roots[0]).startswith(("/", "~")):
            hits.append(("destructive_ops", f"find {roots[0]} deletes or runs commands on it"))
    hits.extend(_shell_dump(name, args))
    if (
        name in PACKAGE_VERBS
        and sub in PACKAGE_VERBS[name]
        or (name in {"pip", "pip3", "uv"} and "install" in texts)
    ):
        hits.append(("package_install", f"{name} {sub} installs software"))
    if name in _WRITE_ALL or name in _WRITE_LAST:
        for target in _targets(name, args):
            hits.extend(path_hits(target))
    return hits
