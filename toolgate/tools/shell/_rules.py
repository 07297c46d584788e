"""Per-command rules of the 15 deny groups, applied to a normalised simple command.

``name`` is the program as the kernel would resolve it (basename, wrappers removed);
``args`` are evaluated words. Each rule says which group and why; the analyzer does
the unwrapping (sh -c, env, sudo, ...) and the data flow, so rules stay flat.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from ._syntax import Redirect, Word

Hit = tuple[str, str]
Rule = Callable[[str, list[Word]], list[Hit]]

NETWORK_RECON = frozenset({"nmap", "masscan", "zmap", "nikto", "gobuster", "dirb", "dirbuster",
    "hping3", "arp-scan", "netdiscover", "whatweb", "nuclei", "sqlmap", "wpscan", "enum4linux",
    "unicornscan", "amass", "subfinder", "ffuf", "feroxbuster"})  # fmt: skip
MINERS = frozenset({"xmrig", "xmr-stak", "minerd", "cpuminer", "cgminer", "bfgminer", "ethminer",
    "nbminer", "t-rex", "lolminer", "phoenixminer", "nanominer", "gminer", "teamredminer",
    "srbminer", "ccminer", "nheqminer"})  # fmt: skip
REVERSE_TOOLS = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "pwncat", "rcat"})
PRIVILEGE = frozenset({"sudo", "su", "doas", "pkexec", "runuser", "visudo", "passwd", "chpasswd",
    "usermod", "useradd", "groupadd", "gpasswd", "setcap", "newgrp"})  # fmt: skip
ESCAPE = frozenset({"nsenter", "unshare", "chroot", "pivot_root", "capsh", "insmod", "modprobe",
    "rmmod", "kexec", "debugfs"})  # fmt: skip
POWER = frozenset({"shutdown", "reboot", "halt", "poweroff", "telinit"})
DISK = frozenset({"mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "shred",
    "blkdiscard"})  # fmt: skip
DNS = frozenset({"dig", "nslookup", "host", "drill", "resolvectl", "kdig"})
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "fish", "tcsh", "csh"})
INTERPRETERS = {
    "python": ("-c",), "python2": ("-c",), "python3": ("-c",), "perl": ("-e", "-E"),
    "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"), "nodejs": ("-e", "--eval"),
    "php": ("-r",), "lua": ("-e",), "Rscript": ("-e",), "deno": ("eval",), "bun": ("-e", "--eval"),
}  # fmt: skip
PACKAGE_VERBS = {
    "apt": {"install", "reinstall"}, "apt-get": {"install", "reinstall"},
    "aptitude": {"install"}, "yum": {"install", "localinstall", "groupinstall"},
    "dnf": {"install"}, "zypper": {"install", "in"}, "apk": {"add"},
    "brew": {"install", "reinstall", "tap"}, "pip": {"install"}, "pip3": {"install"},
    "pipx": {"install", "inject"}, "npm": {"install", "i", "add", "ci", "isntall"},
    "yarn": {"add", "install"}, "pnpm": {"add", "install", "i"}, "gem": {"install"},
    "cargo": {"install"}, "go": {"install", "get"}, "conda": {"install"}, "mamba": {"install"},
    "snap": {"install"}, "port": {"install"}, "composer": {"require", "install"},
    "dpkg": {"-i", "--install"}, "rpm": {"-i", "-U", "--install", "-ivh", "-Uvh"},
    "flatpak": {"install"}, "bun": {"add", "install"}, "uv": {"add", "tool"},
}  # fmt: skip
SENSITIVE_ENV = re.compile(
    r"^(LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND|PS4|"
    r"GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|PYTHONSTARTUP|PERL5OPT|NODE_OPTIONS|RUBYOPT|"
    r"GCONV_PATH|LD_BIND_NOW|MALLOC_\w+)$"
)
SYSTEM_DIRS = ("/etc", "/root", "/boot", "/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64",
               "/sys", "/proc", "/var/lib", "/var/log", "/opt", "/srv")  # fmt: skip
PERSIST_PATHS = re.compile(
    r"(^/etc/cron|^/var/spool/cron|^/etc/systemd|/\.config/systemd|^/etc/init\.d|^/etc/rc\.local|"
    r"^/etc/rc\d\.d|^/lib/systemd|^/usr/lib/systemd|/\.ssh/authorized_keys|/\.(bashrc|bash_profile|"
    r"profile|zshrc|zprofile|bash_login|bash_logout)$|^/etc/profile|^/etc/bash\.bashrc|"
    r"^/etc/ld\.so\.preload|/Library/LaunchAgents|/Library/LaunchDaemons|^/etc/xdg/autostart)"
)
HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero",
                              "/dev/random", "/dev/urandom", "/dev/fd/1", "/dev/fd/2"})  # fmt: skip
SOCKET_PATH = re.compile(r"/dev/(tcp|udp)/")


def flags(args: Iterable[Word]) -> set[str]:
    """Short flags split (``-rf`` → r, f) plus long flags as written."""
    found: set[str] = set()
    for arg in args:
        text = arg.text
        if text.startswith("--"):
            found.add(text.split("=", 1)[0])
        elif text.startswith("-") and len(text) > 1:
            found.update(text[1:])
    return found


def positional(args: Iterable[Word]) -> list[Word]:
    return [a for a in args if not a.text.startswith("-") or a.text == "-"]


def normalise_path(text: str) -> str:
    """``~`` and ``$HOME`` become ``~``; ``/a/../b`` collapses; relative stays relative."""
    text = re.sub(r"^(\$\{?HOME\}?)(?=/|$)", "~", text)
    if text.startswith("/"):
        return posixpath.normpath(text).replace("//", "/")
    return text


def path_hits(path: Word) -> list[Hit]:
    """Writing to this path: persistence, a system directory, a device, a socket."""
    text = normalise_path(path.text)
    if SOCKET_PATH.search(text):
        return [("data_exfiltration", f"writes to a network socket ({text})")]
    if PERSIST_PATHS.search(text) or PERSIST_PATHS.search(text.replace("~", "", 1)):
        return [("persistence", f"writes to {text}, which runs at boot, login or on a schedule")]
    if text.startswith("/dev/") and text not in HARMLESS_DEVICES:
        return [("destructive_ops", f"writes to the device {text}")]
    if any(text == d or text.startswith(d + "/") for d in SYSTEM_DIRS):
        if text.startswith(("/etc/sudoers", "/etc/passwd", "/etc/shadow")):
            return [("privilege_escalation", f"writes to {text}")]
        if "release_agent" in text or text.startswith("/proc/sys"):
            return [("container_escape", f"writes to {text}")]
        return [("dangerous_paths", f"writes to the system path {text}")]
    return []


def redirect_hits(redirects: list[Redirect], shell: bool) -> list[Hit]:
    hits: list[Hit] = []
    for redirect in redirects:
        target = redirect.target.text
        if SOCKET_PATH.search(target):
            group = "reverse_shell" if shell else "data_exfiltration"
            hits.append((group, f"connects to a network socket through {target}"))
        elif redirect.op.endswith(">") or redirect.op.endswith(">>") or redirect.op == ">|":
            hits.extend(path_hits(redirect.target))
    return hits


def env_hits(assignments: dict[str, Word]) -> list[Hit]:
    return [
        ("env_injection", f"sets {name}, which makes programs load or run other code")
        for name in assignments
        if SENSITIVE_ENV.match(name)
    ]


def any_arg_hits(args: list[Word]) -> list[Hit]:
    """Rules on any program's arguments."""
    hits: list[Hit] = []
    for arg in args:
        text = arg.text
        if "stratum+tcp://" in text or "stratum+ssl://" in text:
            hits.append(("crypto_mining", "connects to a mining pool (stratum)"))
        if re.search(r"/proc/(self|\d+|\*)/environ", text):
            hits.append(("env_dump", "reads a process environment from /proc"))
        if "docker.sock" in text:
            hits.append(("container_escape", "uses the Docker socket"))
        if SOCKET_PATH.search(text):
            hits.append(("data_exfiltration", f"names a network socket ({text})"))
    return hits
