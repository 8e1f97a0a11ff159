"""POD's formatting codes (`B<bold>`, `C<< $a->b >>`, `L<Log::Log4perl/"Easy Mode">`,
`E<gt>`) turned into the words perldoc shows.

One forward scan with a stack of open codes: a code opens at a capital letter of
`CODES` followed by `<` (or by two or more `<` and a blank, the form whose content may
hold a lone `>`), closes at `>` (or a blank then as many `>`). Where each run of `>`
ends is counted once, backwards, so a close is checked in constant time; nesting stops
at MAX_DEPTH (deeper codes are text), so a line of ten thousand `B<` costs linear time.
A code never closed is its own text, as Pod::Simple leaves it.

What each code becomes: `B`, `I`, `C`, `F`, `S` their content (the words; Markdown
emphasis or backticks would only have to be escaped); `L` its text (and a web address
after it), or what perldoc says for a link with none ("Easy Mode" in Log::Log4perl); `E`
the character it names; `X` (an index entry) and `Z` (a null) nothing.
"""

from __future__ import annotations

import html

CODES = frozenset("BCEFILSXZ")
DROPPED = frozenset("XZ")
MAX_DEPTH = 16
ESCAPES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}


class _Open:
    __slots__ = ("brackets", "code", "parts")

    def __init__(self, code: str, brackets: int) -> None:
        self.code = code
        self.brackets = brackets  # 1, or n ≥ 2 for the `C<< … >>` form
        self.parts: list[str] = []


def shown(text: str) -> str:
    """`text` (one paragraph of POD) with its formatting codes replaced by their words."""
    closing = _closing_runs(text)
    stack: list[_Open] = []
    top: list[str] = []
    i, size = 0, len(text)
    while i < size:
        char = text[i]
        out = stack[-1].parts if stack else top
        if char in CODES and i + 1 < size and text[i + 1] == "<" and len(stack) < MAX_DEPTH:
            brackets = _run(text, i + 1, "<")
            after = i + 1 + brackets
            if brackets >= 2 and after < size and text[after].isspace():
                stack.append(_Open(char, brackets))
                i = after + 1
            else:
                stack.append(_Open(char, 1))
                i += 2
            continue
        if char == ">" and stack:
            code = stack[-1]
            if code.brackets == 1:
                stack.pop()
                (stack[-1].parts if stack else top).append(_render(code.code, "".join(code.parts)))
                i += 1
                continue
            if closing[i] >= code.brackets and i > 0 and text[i - 1].isspace():
                stack.pop()
                content = "".join(code.parts).strip()
                (stack[-1].parts if stack else top).append(_render(code.code, content))
                i += code.brackets
                continue
        out.append(char)
        i += 1
    while stack:  # never closed: the opening as written, then what followed it
        code = stack.pop()
        opening = code.code + "<" * code.brackets + (" " if code.brackets > 1 else "")
        (stack[-1].parts if stack else top).append(opening + "".join(code.parts))
    return "".join(top)


def _run(text: str, start: int, char: str) -> int:
    """How many `char` stand in a row from `start` (bounded by MAX_DEPTH + 2: a longer
    run of `<` opens no code of its own, and is looked at once a run)."""
    end = start
    limit = min(len(text), start + MAX_DEPTH + 2)
    while end < limit and text[end] == char:
        end += 1
    return end - start


def _closing_runs(text: str) -> list[int]:
    """For each position, how many `>` stand in a row from it: one backward pass."""
    runs = [0] * (len(text) + 1)
    for i in range(len(text) - 1, -1, -1):
        runs[i] = runs[i + 1] + 1 if text[i] == ">" else 0
    return runs


def _render(code: str, content: str) -> str:
    if code in DROPPED:
        return ""
    if code == "E":
        return _escape(content)
    if code == "L":
        return _link(content)
    return content


def _escape(name: str) -> str:
    """`E<gt>` → `>`, `E<0x201E>`, `E<075>` (octal), `E<8364>`, `E<eacute>` (HTML's names)."""
    name = name.strip()
    if name in ESCAPES:
        return ESCAPES[name]
    try:
        if name[:2].lower() == "0x":
            return chr(int(name[2:], 16))
        if name.isdigit():
            return chr(int(name, 8) if name.startswith("0") else int(name))
    except (ValueError, OverflowError):
        return f"E<{name}>"
    named = html.unescape(f"&{name};")
    return named if named != f"&{name};" else f"E<{name}>"


def _link(content: str) -> str:
    """What perldoc shows for `L<…>`: the text before a `|`, else the section and page
    (`"Easy Mode" in Log::Log4perl`), a page or a URL as written."""
    text, bar, target = content.partition("|")
    if bar:  # a web address stays beside its text, as perldoc shows it
        return f"{text} <{target.strip()}>" if "://" in target else text
    if "://" in content:
        return content
    page, slash, section = content.partition("/")
    if not slash:
        return content
    section = section.strip()
    if not section.startswith('"'):
        section = f'"{section}"'
    return f"{section} in {page}" if page.strip() else section
