"""Source code, by extension: headings ``file > class > function`` where that is cheap.

Which extensions are indexed is the ``include`` setting (its default lists common
languages; add a pattern such as ``"*.zig"`` for more): any file it lets through that has
no dedicated format module is read here, as text. Python is split with the standard
library's own parser (`ast`) into module code, classes, methods and functions, each a
section; every other language (and Python that does not parse) is one section under the
file name. Code is kept verbatim in fenced blocks.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import PurePath

from ragd.ingest.formats.markdown import MarkdownWriter
from ragd.ingest.loaders import Document, decode_text

FORMAT = "source file"

LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".swift": "swift",
    ".scala": "scala",
    ".sh": "sh",
    ".sql": "sql",
    ".lua": "lua",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
}

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def parse(name: str, data: bytes) -> Document:
    text, notes = decode_text(data)
    suffix = PurePath(name).suffix.lower()
    language = LANGUAGES.get(suffix, suffix.lstrip("."))
    writer = MarkdownWriter()
    writer.heading(1, name)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    tree = _python_tree(text) if language == "python" else None
    if tree is None:
        writer.code(text, language)
    else:
        _write_python(tree.body, lines, writer, 2, range(1, len(lines) + 1))
    return Document(kind="markdown", title=name, text=writer.text(), notes=notes)


def _python_tree(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # not Python 3 (or too deep for the parser): indexed as plain code


def _start(node: ast.stmt) -> int:
    """First line of a statement, its decorators included (1-based)."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _write_python(
    body: Sequence[ast.stmt], lines: list[str], writer: MarkdownWriter, level: int, span: range
) -> None:
    """The lines of `span` before its first definition, then one section per class or
    function, each running up to the next definition (code between two definitions
    stays with the one above it). `span` holds 1-based line numbers."""
    definitions = [n for n in body if isinstance(n, Definition)]
    starts = [_start(n) for n in definitions] + [span.stop]
    writer.code(_text(lines, range(span.start, starts[0])), "python")
    for node, first, after in zip(definitions, starts, starts[1:], strict=False):
        kind = "class" if isinstance(node, ast.ClassDef) else "def"
        writer.heading(level, f"{kind} {node.name}")
        methods = [n for n in getattr(node, "body", []) if isinstance(n, Definition)]
        if isinstance(node, ast.ClassDef) and methods and level < 6:
            writer.code(_text(lines, range(first, _start(methods[0]))), "python")
            _write_python(methods, lines, writer, level + 1, range(_start(methods[0]), after))
        else:
            writer.code(_text(lines, range(first, after)), "python")


def _text(lines: list[str], numbers: range) -> str:
    return "\n".join(lines[numbers.start - 1 : numbers.stop - 1])
