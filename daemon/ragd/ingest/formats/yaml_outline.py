"""YAML files headed by their keys and named items, read from indentation alone.

A `.yml` was one `(untitled)` code section: every chunk of an Ansible role's
`defaults/main.yml` or `tasks/main.yml`, a GitHub workflow or a Kubernetes manifest was
cited as `file:(untitled)` (newuser52, the community.zabbix collection: 100 % of its
words kept, none of them in a heading). Now:

- each top-level key heads its lines (`zabbix_agent_listenport`), with the comment lines
  right above it (a role's defaults are documented so);
- each top-level item of a list of mappings is headed by its `name:` (an Ansible task,
  "Install the agent"), else by its first `key: value` (`uses: actions/checkout@v4`);
- an entry longer than a chunk (`SPLIT_CHARS`) is split again at its own keys or items,
  one level below (`jobs > test`, a play's `tasks > Install the agent`), down to
  `DEEPEST` levels;
- a run of one-line entries (`apiVersion: v2`, `name: web`) is one section headed by
  their first names (`apiVersion, name, version, …`, as code between Python definitions
  is), not a chunk and an embedding each; inside a split entry, the one-liners before its
  first longer child stay with the entry's own line (a play's `hosts: all`);
- a sequence at its key's own indent (`containers:` over `- name: web`) is the key's, as
  one indented under it is: `spec > containers > web`;
- a complex key (`? [a, b]` over `: value`) heads its lines as a key does, by the key
  as its `? ` line writes it;
- a file of several documents (`---`) is headed per document: its `kind` and
  `metadata.name` (`Deployment web`), else its `name`, else its number.

No YAML parser: the text is shown verbatim as code either way, so only where entries
start is needed, and a parser would build the whole tree (aliases expand exponentially),
drop the comments and refuse the Jinja of a Helm template. Each level looks at each line
once, and there are at most `DEEPEST` levels: linear in the file. No line of a scalar
(a block scalar, a quoted one over lines) or of a flow collection over lines heads
anything, whatever it looks like.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ragd.ingest.formats.markdown import MarkdownWriter, names_heading

SPLIT_CHARS = 2_000  # an entry longer than about one chunk is split at its children
DEEPEST = 5  # heading levels 2..5 (`jobs > test > steps > Run the suite`)
SMALL_CHARS = 600  # an entry shorter than this (its comments and value included) is grouped
GROUP_CHARS = 2_000  # a run of small entries is cut into sections of about half a chunk
TITLE_CHARS = 120

# A mapping key opening a line (after its indent, or after an item's `- `): plain, or
# quoted; a `:` ends it when a space or the line's end follows (`http://x` is no key).
_KEY = re.compile(
    r"""(?P<key>"[^"\n]{1,200}"|'[^'\n]{1,200}'|[^\s#'"?:,\[\]{}&*!|>%@`-][^:#\n]{0,200}?"""
    r"""|-[^\s:#][^:#\n]{0,200}?):(?:[ \t]+(?P<value>\S.*)?)?$"""
)


class Entry(NamedTuple):
    """A key or an item at one indent: the 0-based line it starts on (its comments above
    included), the line of the key or item itself, and its heading."""

    start: int
    line: int
    title: str
    small: bool  # under `SMALL_CHARS` with what follows it: a run of these is grouped
    one_line: bool  # nothing under it (`hosts: all`)


def write_yaml(lines: list[str], writer: MarkdownWriter, read: list[str] | None = None) -> None:
    """`lines` as YAML code under the headings of its entries (module docstring), read
    from `read` when given, a line for each of `lines` (a Jinja template's, its tag lines
    blank: formats.code)."""
    seen = lines if read is None else read
    content, comments = _content_lines(seen)
    documents = _documents(seen, content)
    headings: list[tuple[int, int, str]] = []  # (0-based first line, level, title)
    if len(documents) > 1:
        for number, (first, after) in enumerate(documents, start=1):
            headings.append((first, 2, _document_title(seen, content, first, after, number)))
            if _chars(seen, first, after) > SPLIT_CHARS:
                _outline(seen, content, comments, range(first, after), 0, 3, headings)
    else:
        _outline(seen, content, comments, range(0, len(seen)), 0, 2, headings, top=True)
    headings = _folded(seen, content, sorted(headings))
    bounds = [first for first, _, _ in headings] + [len(lines)]
    writer.code("\n".join(lines[: bounds[0]]), "yaml", first_line=1)
    for (first, level, title), after in zip(headings, bounds[1:], strict=False):
        writer.heading(level, title)
        writer.code("\n".join(lines[first:after]), "yaml", first_line=first + 1)


def _folded(
    lines: list[str], content: list[bool], headings: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """`headings` (in order) with no section that would be a chunk of its own line
    alone: the file's opening `---` (and comments) go to the first entry, and a key
    whose first child is headed (`sign_keys:` over `"64":`) is read with that child, a
    chain of them with the first that holds more (`spec:`, `template:`, `spec:` over
    `containers:`). Each line is looked at once."""
    folded = list(headings)
    if folded and not any(content[: folded[0][0]]):
        folded[0] = (0, folded[0][1], folded[0][2])
    for index in range(len(folded) - 1):
        (start, level, _), (after, deeper, title) = folded[index], folded[index + 1]
        own = headings[index][0]  # its own lines: those folded into it above are not
        if deeper > level and sum(content[own:after]) <= 1:
            folded[index + 1] = (start, deeper, title)
    return folded


def _chars(lines: list[str], first: int, after: int) -> int:
    return sum(len(line) + 1 for line in lines[first:after])


def _content_lines(lines: list[str]) -> tuple[list[bool], list[bool]]:
    """Which lines hold YAML structure: not blank, not a comment, not a document marker
    (`---`, `...`), not inside a block scalar (`run: |`, `description: >-`: its lines are
    text, whatever they look like), nor inside a quoted scalar or a flow collection over
    several lines (`description: "Use it\n  name: like this"`, `args: [\n  a: 1,`); and
    which are comments, outside all of those (a script's `# step` in `run: |` is text)."""
    content = [False] * len(lines)
    comments = [False] * len(lines)
    scalar_above: int | None = None  # the indent a block scalar's lines must exceed
    open_at: int | None = None  # the indent of the line a quoted scalar or a flow opened on
    state = ("", 0)  # ... the quote it is in and the brackets open (`_scan`)
    for number, line in enumerate(lines):
        stripped = line.strip()
        indent = _indent(line)
        if scalar_above is not None and (not stripped or indent > scalar_above):
            continue
        scalar_above = None
        if open_at is not None and (not stripped or indent >= open_at):
            state = _scan(line, 0, *state) if stripped else state
            open_at = None if state == ("", 0) else open_at
            continue
        open_at = None  # never closed, and a line left of it: YAML of another kind
        if not stripped or stripped.startswith("#") or _marker(line):
            comments[number] = stripped.startswith("#")
            continue
        content[number] = True
        if _opens_block_scalar(stripped):
            scalar_above = _node_indent(line, indent)
            continue
        state = _opened(line, _markers(line, indent)[1])
        open_at = None if state == ("", 0) else indent
    return content, comments


def _opened(line: str, column: int) -> tuple[str, int]:
    """The quote and the brackets left open at the end of `line` by its value (or the
    item's, or the line's own from `column`: a template's `{{ … }}`); ("", 0) for none."""
    key = _KEY.match(line[column:])
    value = (key.group("value") or "") if key is not None else line[column:]
    while value[:1] in ("!", "&"):  # a tag or an anchor before it: `!!str "…`, `&args [`
        value = value.partition(" ")[2].lstrip(" ")
    if value[:1] in ("'", '"'):
        return _scan(value, 1, value[0], 0)
    if value[:1] in ("[", "{"):
        return _scan(value, 1, "", 1)
    return "", 0


# A quoted scalar's rest up to its closing quote: `\"` and `''` are quotes inside it.
_DOUBLE_END = re.compile(r'(?:[^"\\]|\\.)*"')
_SINGLE_END = re.compile(r"(?:[^']|'')*'(?!')")
_FLOW_MARK = re.compile(r"""["'\[\]{}#]""")  # what a flow collection's depth turns on


def _scan(text: str, index: int, quote: str, depth: int) -> tuple[str, int]:
    """Where a quoted scalar or a flow collection open at `index` of `text` stands at its
    end: the quote still open ("" for none) and the brackets still open; ("", 0) once it
    has closed (the rest of the line is not looked at). Each character looked at once."""
    while True:
        if quote:
            end = (_DOUBLE_END if quote == '"' else _SINGLE_END).match(text, index)
            if end is None:
                return quote, depth
            index, quote = end.end(), ""
        if depth == 0:
            return "", 0
        mark = _FLOW_MARK.search(text, index)
        if mark is None:
            return "", depth
        char, index = mark.group(), mark.end()
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "#":
            if mark.start() == 0 or text[mark.start() - 1] in " \t":
                return "", depth  # a comment, to the line's end
        elif _starts_scalar(text, mark.start()):
            quote = char


def _starts_scalar(text: str, index: int) -> bool:
    """A quote at `index` opens a scalar only where one starts (not `it's`): after a
    bracket, a comma or a colon, or first on the line. Looks back over blanks only."""
    before = index - 1
    while before >= 0 and text[before] == " ":
        before -= 1
    return before < 0 or text[before] in "[{,:"


def _opens_block_scalar(stripped: str) -> bool:
    """A line ending in a block scalar's indicator (`|`, `>-`, `|2+`), a comment after it
    allowed, with the `:` of a key, the `-` of an item or the `?` of a complex key before
    it, and a tag or an anchor between (`script: !reference |`, `- &cmd |`)."""
    body = stripped.split(" #", 1)[0].rstrip()
    head, _, indicator = body.rpartition(" ")
    if not _is_indicator(indicator):
        return False
    head = head.rstrip()
    while head.rpartition(" ")[2][:1] in ("!", "&"):
        head = head.rpartition(" ")[0].rstrip()
    return head.endswith((":", "-", "?")) or head == ""


def _node_indent(line: str, indent: int) -> int:
    """The column of the node a block scalar belongs to: the key after any `- ` markers
    (`- run: |` is the key `run` two columns in); its lines must be indented past it. An
    item that is the scalar itself (`- |`) is the node: its lines need only pass the `-`."""
    dash, column = _markers(line, indent)
    return dash if line[column : column + 1] in ("|", ">", "!", "&") else column


def _markers(line: str, indent: int) -> tuple[int, int]:
    """The column of the last `- ` (or `? `) opening `line` at `indent` (`indent` if none),
    and of what follows them."""
    column, dash = indent, indent
    while line.startswith(("- ", "? "), column) or line[column:].rstrip() in ("-", "?"):
        dash = column
        column += 2
        while column < len(line) and line[column] == " ":
            column += 1
    return dash, column


def _documents(lines: list[str], content: list[bool]) -> list[tuple[int, int]]:
    """The spans of the file's documents that hold content, split at `---` lines (at the
    margin always a marker: it ends a block scalar too)."""
    spans: list[tuple[int, int]] = []
    first = 0
    for number, line in enumerate(lines):
        if line.startswith("---") and (line.rstrip() == "---" or line.startswith("--- ")):
            spans.append((first, number))
            first = number  # the marker line opens the document after it
    spans.append((first, len(lines)))
    return [(a, b) for a, b in spans if any(content[a:b])]


def _marker(line: str) -> bool:
    """`---` opening a document, `...` ending one (a `--- !tag` or `--- |` too)."""
    return line.startswith(("---", "...")) and (line[3:4] in ("", " ") or not line[3:].strip())


def _document_title(
    lines: list[str], content: list[bool], first: int, after: int, number: int
) -> str:
    """`Deployment web` (a Kubernetes object's `kind` and `metadata.name`), else the
    document's top-level `name`, else `document N`. Each line looked at once."""
    kind = name = meta_name = None
    in_metadata = False
    meta_indent: int | None = None  # that of metadata's own keys (not `labels: name:`)
    for index in range(first, after):
        line = lines[index]
        if not content[index]:
            continue
        if not line.startswith(" "):
            key = _KEY.match(line)
            in_metadata = key is not None and _unquoted(key.group("key")) == "metadata"
            if key is not None and key.group("value"):
                label = _unquoted(key.group("key"))
                if label == "kind" and kind is None:
                    kind = _value(key.group("value"), _following(lines, index))
                elif label == "name" and name is None:
                    name = _value(key.group("value"), _following(lines, index))
        elif in_metadata and meta_name is None:
            meta_indent = _indent(line) if meta_indent is None else meta_indent
            key = _KEY.match(line[meta_indent:]) if _indent(line) == meta_indent else None
            if key is not None and _unquoted(key.group("key")) == "name" and key.group("value"):
                meta_name = _value(key.group("value"), _following(lines, index))
    if kind:
        return f"{kind} {meta_name or name or ''}".strip()
    return name or f"document {number}"


def _outline(
    lines: list[str],
    content: list[bool],
    comments: list[bool],
    span: range,
    indent: int,
    level: int,
    headings: list[tuple[int, int, str]],
    top: bool = False,
) -> None:
    """Headings for the entries at `indent` in `span`, each split again at its children
    when longer than `SPLIT_CHARS` (and `level` allows). Below the top, the one-line
    entries before the first other one stay under their parent's heading (a play's
    `hosts: all`, a job's `runs-on:`)."""
    entries = _entries(lines, content, comments, span, indent)
    if not entries:
        return
    bounds = [entry.start for entry in entries[1:]] + [span.stop]
    if not top:  # the leading one-liners describe the parent: they stay in its lead
        lead = next((i for i, entry in enumerate(entries) if not entry.one_line), len(entries))
        entries, bounds = entries[lead:], bounds[lead:]
    for entry, after, title in _grouped(lines, entries, bounds):
        headings.append((entry.start, level, title))
        if level >= DEEPEST or entry.small:
            continue
        if _chars(lines, entry.start, after) <= SPLIT_CHARS:
            continue
        inner = range(entry.line + 1, after)
        if _is_item(lines[entry.line][indent:]):  # its keys stand where its first one does
            child: int | None = _item_column(lines[entry.line], indent)
        else:
            child = _child_indent(lines, content, inner, indent)
        if child is not None:
            _outline(lines, content, comments, inner, child, level + 1, headings)


def _grouped(
    lines: list[str], entries: list[Entry], bounds: list[int]
) -> list[tuple[Entry, int, str]]:
    """Each entry with where its section ends and its heading; a run of one-line entries
    one section (cut at about `GROUP_CHARS`), headed by its first names."""
    groups: list[tuple[Entry, int, str]] = []
    run: list[Entry] = []
    run_chars = 0

    def close(after: int) -> None:
        nonlocal run, run_chars
        if run:
            groups.append((run[0], after, names_heading([entry.title for entry in run])))
        run, run_chars = [], 0

    for entry, after in zip(entries, bounds, strict=True):
        if not entry.small:
            close(entry.start)
            groups.append((entry, after, entry.title))
            continue
        chars = _chars(lines, entry.start, after)
        if run and run_chars + chars > GROUP_CHARS:
            close(entry.start)
        run.append(entry)
        run_chars += chars
    close(bounds[-1] if bounds else 0)
    return groups


def _entries(
    lines: list[str], content: list[bool], comments: list[bool], span: range, indent: int
) -> list[Entry]:
    """The keys and the items of mappings that start at column `indent` in `span`. Where
    `indent` holds keys, an item there belongs to the key above it (`containers:` over
    `- name: web`, a sequence written at its key's own indent): it is no entry of its own
    here, but one of that key's when the key is split."""
    found: list[tuple[int, int, str]] = []  # (start, line, title)
    keys: bool | None = None  # whether `indent` holds a mapping (its first key or item)
    for number in span:
        line = lines[number]
        if not content[number] or _indent(line) != indent:
            continue
        rest = line[indent:]
        if _is_item(rest):
            if keys:
                continue  # an item of the key above
            keys = False
            title = _item_title(rest[1:].lstrip(" "), _following(lines, number))
        elif _is_complex_key(rest):
            title = _complex_title(rest, _following(lines, number))
            keys = True if keys is None else keys
        else:
            key = _KEY.match(rest)
            title = _unquoted(key.group("key")) if key is not None else None
            keys = True if keys is None and key is not None else keys
        if title is None:
            continue  # a scalar item, a template's `{{- end }}`, a flow collection's line
        floor = found[-1][1] + 1 if found else span.start
        found.append((_with_comments(comments, number, floor), number, title))
    entries: list[Entry] = []
    item_names = _item_names(lines, content, found, span.stop, indent)
    for index, (start, number, title) in enumerate(found):
        after = found[index + 1][0] if index + 1 < len(found) else span.stop
        small = _chars(lines, start, after) < SMALL_CHARS
        one_line = start == number and not any(content[number + 1 : after])
        entries.append(Entry(start, number, item_names.get(number, title), small, one_line))
    return entries


def _item_title(rest: str, following: str) -> str | None:
    """An item's heading from its own line (and `following`, a block scalar's first):
    `name: Install` → "Install"; another key's `key: value`; None for a scalar item
    (`- foo`), which heads nothing."""
    key = _KEY.match(rest)
    if key is None:
        return None
    label, value = _unquoted(key.group("key")), key.group("value")
    if label == "name" and value:
        return _value(value, following)
    return f"{label}: {_value(value, following)}" if value else label


def _item_names(
    lines: list[str], content: list[bool], found: list[tuple[int, int, str]], stop: int, indent: int
) -> dict[int, str]:
    """For the items whose `name:` is not on their `- ` line (`- hosts: all` then
    `  name: Configure`), that name, by the item's line. Each line looked at once."""
    names: dict[int, str] = {}
    for index, (_, number, _) in enumerate(found):
        if not _is_item(lines[number][indent:]):
            continue
        column = _item_column(lines[number], indent)
        first = _KEY.match(lines[number][column:])
        if first is not None and _unquoted(first.group("key")) == "name":
            continue  # already named by its own line
        after = found[index + 1][1] if index + 1 < len(found) else stop
        for inner in range(number + 1, after):
            if not content[inner] or _indent(lines[inner]) != column:
                continue
            key = _KEY.match(lines[inner][column:])
            if key is not None and _unquoted(key.group("key")) == "name" and key.group("value"):
                names[number] = _value(key.group("value"), _following(lines, inner))
                break
    return names


def _child_indent(lines: list[str], content: list[bool], span: range, indent: int) -> int | None:
    """The indent of a key's children: its first content line deeper than `indent`, or an
    item at the key's own indent (`tasks:` over `- name: Install`)."""
    for number in span:
        if content[number]:
            child = _indent(lines[number])
            if child > indent or (child == indent and _is_item(lines[number][child:])):
                return child
            return None
    return None


def _item_column(line: str, indent: int) -> int:
    """Where the first key of the item at `indent` stands (`- help_text:` → 2): its other
    keys stand there too, below a first key whose own children stand deeper."""
    rest = line[indent + 1 :]
    return indent + 1 + len(rest) - len(rest.lstrip(" "))


def _is_complex_key(rest: str) -> bool:
    """`rest` (a line from its indent on) opens a complex key, `? key` (its value follows
    on a `: value` line): a key no plain `key:` spells, a flow sequence, a block scalar.
    Its lines had been read into the key above it, which headed them (r58)."""
    return rest.startswith("? ") or rest.rstrip() == "?"


def _complex_title(rest: str, following: str) -> str:
    """A complex key's heading: the key as written on its `? ` line (`[a, b]`), or the
    first line of the key below it (a block scalar's, a key over lines), else "?"."""
    return _value(rest[1:], following) or following.strip()[:TITLE_CHARS] or "?"


def _is_item(rest: str) -> bool:
    """`rest` (a line from its indent on) is an item of a sequence: `- x`, or `-` alone."""
    return rest.startswith("- ") or rest.rstrip() == "-"


def _with_comments(comments: list[bool], number: int, floor: int) -> int:
    """Line `number`, moved up over the comment lines right above it (a key's
    documentation), never above `floor`, nor onto a `#` line of a scalar above (the
    end of a `run: |` script)."""
    first = number
    while first > floor and comments[first - 1]:
        first -= 1
    return first


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _unquoted(key: str) -> str:
    """A key or a value as it reads: its quotes off, and what they escape (`''` in single
    quotes, `\\"`, `\\xE9`, `\\u6F22` in double ones) read."""
    key = key.strip()
    if len(key) >= 2 and key[0] == key[-1] == "'":
        return key[1:-1].replace("''", "'")
    if len(key) >= 2 and key[0] == key[-1] == '"':
        return _ESCAPE.sub(_escaped, key[1:-1])
    return key


_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")
_ESCAPED = {"0": "", "a": "", "b": "", "e": "", "f": " ", "n": " ", "r": " ", "t": " ", "v": " "}
_ESCAPED |= {"N": " ", "_": "\u00a0", "L": " ", "P": " "}  # in a title, a break is a blank


def _escaped(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) > 1:
        return chr(min(int(code[1:], 16), 0x10FFFF))
    return _ESCAPED.get(code, code)


def _value(value: str | None, following: str = "") -> str:
    """A scalar value as a title: its tag or anchor off (`!!str`, `&name`), its comment
    off, its quotes off (a ` #` inside them kept), cut to `TITLE_CHARS`. A block scalar's
    title is its first line, `following` (`name: >-` over the words of a long name)."""
    text = (value or "").strip()
    while text[:1] in ("!", "&"):
        text = text.partition(" ")[2].lstrip(" ")
    if text[:1] in ("'", '"'):
        end = (_DOUBLE_END if text[0] == '"' else _SINGLE_END).match(text, 1)
        text = (_unquoted(text[: end.end()]) if end is not None else text[1:]).strip()
    elif _is_indicator(text.split(" #", 1)[0].strip()):
        text = following.strip()
    else:
        text = text.split(" #", 1)[0].strip()
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1].rstrip() + "…"


def _is_indicator(text: str) -> bool:
    """`text` is a block scalar's indicator: `|`, `>-`, `|2+`."""
    return text[:1] in ("|", ">") and len(text) <= 3 and all(c in "-+123456789" for c in text[1:])


def _following(lines: list[str], number: int) -> str:
    """The line after line `number` (the first of a block scalar it may open)."""
    return lines[number + 1] if number + 1 < len(lines) else ""
