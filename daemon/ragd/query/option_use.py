"""An option defined with a placeholder, and the text that uses it with a value (pure).

A manual defines an option by a template: "-T#, --threads=#: Compress using # working
threads (default: 1). If # is 0, attempt to detect and use the number of physical CPU
cores." That is the answer to "How do I make zstd use all my CPU cores?", but what to
type, `-T0`, is spelled out only where another entry uses it: "--auto-threads=… When
using a default amount of threads via -T0, …". The answerer quotes such a use after the
definition (extractive.py), as it quotes a program's usage example after its `def`.

Both steps are plain string scans: the options are read from the unit's head only (before
the first ": " or run of blanks that starts the description), and a use is an option name
followed by a digit, after an optional "=".
"""

from __future__ import annotations

import re

# The head of an option entry: options separated by commas, each with an optional value
# placeholder right after it ("-T#", "--threads=#", "--level[=N]"), maybe in backticks,
# then the description. Every quantifier is bounded, so the match is linear.
_ONE = r"--?[A-Za-z][\w-]{0,40}(?:[#=\[<][^\s,:`]{0,30})?`?"
_ENTRY_HEAD = re.compile(rf"[^\S\n]{{0,8}}`?({_ONE}(?:,[^\S\n]{{0,3}}`?{_ONE}){{0,4}})")
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]{0,40})([#=\[<])?")


def valued_options(text: str) -> tuple[str, ...]:
    """The options a unit opens by defining, when they take a value written as a
    placeholder ("-T#, --threads=#" → ("-T", "--threads")); () for anything else."""
    head = _ENTRY_HEAD.match(text)
    if head is None:
        return ()
    found = [(m.group(1), m.group(2)) for m in _OPTION.finditer(head.group(1))]
    if not any(mark for _, mark in found):
        return ()  # a flag ("-q, --quiet"): nothing to fill in
    return tuple(name for name, _ in found)


def uses_with_value(text: str, options: tuple[str, ...]) -> bool:
    """`text` writes one of `options` with a concrete number: "-T0", "--threads=4"."""
    for option in options:
        start = text.find(option)
        while start >= 0:
            end = start + len(option)
            before = text[start - 1] if start > 0 else " "
            after = text[end : end + 2]
            whole = not (before.isalnum() or before in "-_")  # not inside a longer name
            if whole and (after[:1].isdigit() or (after[:1] == "=" and after[1:2].isdigit())):
                return True
            start = text.find(option, end)
    return False
