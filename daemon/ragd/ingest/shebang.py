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

from ragd.ingest.regular_file import read_head

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
}


SUFFIXES = frozenset(INTERPRETERS.values())


def script_suffix(head: bytes) -> str | None:
    """The suffix of the language a file's first bytes name by `#!`, or None."""
    if not head.startswith(b"#!"):
        return None
    line = head[2:FIRST_BYTES].split(b"\n", 1)[0].decode("ascii", "replace")
    words = line.split()
    if words and words[0].endswith("/env"):
        # `env -S python3 -u`, `env LC_ALL=C perl`: the first word that is neither
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    if not words:
        return None
    program = words[0].rpartition("/")[2]
    # `python3.11`, `perl5.36`: the version is not the language
    return INTERPRETERS.get(program.rstrip("0123456789."))


def read_script_suffix(path: Path) -> str | None:
    """`script_suffix` of the file at `path`, reading at most FIRST_BYTES; None for
    anything but a regular file (`regular_file.read_head`) and for a GENERATED name."""
    if path.name in GENERATED:
        return None
    head = read_head(path, FIRST_BYTES)
    return None if head is None else script_suffix(head)
