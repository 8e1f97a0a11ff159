"""A script with no suffix (`bin/rake`, `debian/postinst`, `scripts/release`), told by
its first line: `#!/usr/bin/perl`, `#!/bin/sh`, `#!/usr/bin/env python3`.

Such files were never indexed: the include patterns match names, and a name with no
suffix says nothing. The walk (`ingest.filters`, on the writer's thread, where files are
stat'ed already) reads at most FIRST_BYTES of a suffix-less file the patterns leave out;
one whose interpreter is known is indexed when the patterns include that language's
suffix, and read by that language's reader (`formats`: the suffix stands in for the
missing one). Anything else without a suffix — `Makefile`, `configure`, an executable, a
script for an interpreter not listed here — stays out, as before.
"""

from __future__ import annotations

from pathlib import Path

from ragd.ingest.regular_file import open_head, regular_stat

# Scripts a build writes, not people: autoconf's `configure` (tens of thousands of lines
# of generated shell) and the `libtool` it writes. They stay out as before.
GENERATED = frozenset(("configure", "libtool"))
FIRST_BYTES = 256  # `#!` and an interpreter's path fit in far less
INTERPRETERS = {
    "python": ".py",
    "perl": ".pl",
    "sh": ".sh",
    "bash": ".sh",
    "dash": ".sh",
    "ksh": ".sh",
    "zsh": ".sh",
    "ruby": ".rb",
    "node": ".js",
    "nodejs": ".js",
    "lua": ".lua",
    "php": ".php",
    "tclsh": ".tcl",  # tcllib's example scripts: `csvcut`, `#!/usr/bin/env tclsh`
    "wish": ".tcl",
}


SUFFIXES = frozenset(INTERPRETERS.values())


def script_suffix(head: bytes) -> str | None:
    """The suffix of the language a file's first bytes name by `#!`, or None."""
    if not head.startswith(b"#!"):
        return None
    line = head[2:FIRST_BYTES].split(b"\n", 1)[0].decode("ascii", "replace")
    words = line.split()
    if words and words[0].endswith("/env"):
        words = env_command(words[1:])
    if not words:
        return None
    program = words[0].rpartition("/")[2]
    # `python3.11`, `perl5.36`: the version is not the language
    return INTERPRETERS.get(program.rstrip("0123456789."))


# env's options whose value is the word after them (`-u NAME`, `-C DIR`; BSD's `-P PATH`)
# or, given as one word, the rest of it (`-uNAME`); `-S STRING` splits its value into
# the command, so the command starts with that value.
ENV_VALUE_LETTERS = "uCP"
ENV_VALUE_WORDS = ("--unset", "--chdir")
ENV_SPLIT = "--split-string="


def env_command(words: list[str]) -> list[str]:
    """The command an `env` line runs, from the words after `env`: past its options, their
    values and its NAME=VALUE settings. `env -u PYTHONPATH python3` took the name to be
    removed from the environment for the program (and was not read as Python)."""
    rest = list(reversed(words))  # a stack: the next word is rest[-1]
    while rest:
        word = rest.pop()
        if word in ENV_VALUE_WORDS:
            rest = rest[:-1]
        elif word.startswith(ENV_SPLIT):
            rest.append(word[len(ENV_SPLIT) :])  # `--split-string=python3 -u`
        elif word.startswith("-") and word != "-":
            rest = _after_short_options(word[1:], rest)
        elif "=" not in word:
            return [word, *reversed(rest)]
    return []


def _after_short_options(letters: str, rest: list[str]) -> list[str]:
    """The words left after one word of env's short options (`-i`, `-iu NAME`, `-uNAME`,
    `-Spython3`, `--ignore-environment`)."""
    if letters.startswith("-"):
        return rest  # a long option without a value
    for at, letter in enumerate(letters):
        attached = letters[at + 1 :]
        if letter in ENV_VALUE_LETTERS:
            return rest if attached else rest[:-1]
        if letter == "S" and attached:
            return [*rest, attached]  # the command begins in this word
    return rest


class ScriptHeads:
    """`script_suffix` of the file at a path, reading at most FIRST_BYTES; None for
    anything but a regular file (`regular_file`: a FIFO or a device is never opened), for
    a symbolic link unless links are followed (its target is not opened), and for a
    GENERATED name. Remembered by the file's version (device, inode, mtime, size):
    reading every suffix-less file's first bytes takes a walk of 100,000 of them (a
    Maildir) from about 4 to 8 CPU s (bench/walk_heads.py); a later walk of the same
    files (a root's sync, a rescan) now stats each one and opens none again (about 6,
    the stat is what is left). Kept
    as a hash of the version (an int, not a tuple: a quarter of the memory) and
    cleared when MOST are held, so it stays a few MB. Used on the writer's thread only."""

    MOST = 1 << 17

    def __init__(self) -> None:
        self._seen: dict[int, str | None] = {}

    def suffix(self, path: Path, follow_links: bool = False) -> str | None:
        if path.name in GENERATED:
            return None
        st = regular_stat(path, follow_links)
        if st is None:
            return None
        version = hash((st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size))
        if version in self._seen:
            return self._seen[version]
        head = open_head(path, FIRST_BYTES, follow_links)
        found = None if head is None else script_suffix(head)
        if len(self._seen) >= self.MOST:
            self._seen.clear()
        self._seen[version] = found
        return found
