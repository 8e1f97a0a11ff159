"""Sphinx (and MyST) markup docutils alone does not know: what its directives and roles mean
as text, so their content is indexed instead of dropped.

Sphinx documents are reStructuredText plus directives and roles that Sphinx registers at
build time (`.. py:data::`, `.. versionchanged::`, `:func:`…`). Plain docutils reports
each as an error and drops the directive's whole body; Flask's `config.rst` loses every
one of its configuration keys that way. Here every directive or role name a document uses
that docutils does not know is registered before parsing, with a handler that turns it
into the text a reader of the built page would see:

- a *signature* (domain directives: `py:function`, `confval`, `option`, `envvar`, …) is a
  code line with the signature, followed by its body;
- an *admonition* Sphinx adds (`seealso`, `versionadded`, `deprecated`, …) is its label
  ("Changed in version 2.1:") followed by its body; tabs and other containers are their
  title and body;
- `code-block` and friends are code; `literalinclude` and `include` a line
  "(includes FILE)" (the file is never read: file insertion stays off); an autodoc
  directive (`autoclass`, …) is the name it documents;
- navigation and build settings (`toctree`, `index`, `currentmodule`, `highlight`, …)
  are not text and leave nothing;
- a role is its text: the title of `` :ref:`title <target>` ``, else the target without
  Sphinx's `~` and `!` prefixes (`` :class:`~a.B` `` → `B`), as code for roles that name
  code objects.

The names are the same for MyST Markdown (`formats.myst`), which shares the tables below.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

# Sphinx's own labels for the admonitions docutils lacks; the argument (a version) follows.
LABELS = {
    "seealso": "See also",
    "deprecated": "Deprecated since version",
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "versionremoved": "Removed in version",
    "todo": "To do",
    "note": "Note",
    "warning": "Warning",
    "tip": "Tip",
    "hint": "Hint",
    "important": "Important",
    "caution": "Caution",
    "danger": "Danger",
    "attention": "Attention",
    "error": "Error",
}
# Containers whose argument is a title (a tab's name) and whose body is the text.
CONTAINERS = {
    "tab", "tabs", "tab-set", "tab-item", "group-tab", "only", "ifconfig",
    "hlist", "centered", "glossary", "productionlist", "admonition", "dropdown", "card",
    "grid", "grid-item", "grid-item-card", "div", "margin", "sidebar", "topic", "rubric",
    "container", "figure", "versionadded-body", "tabbed", "details", "attention-box",
}  # fmt: skip
# Containers whose argument is not a title: a condition (`only:: html`) or a layout.
UNTITLED = {"only", "ifconfig", "tabs", "tab-set", "grid", "hlist", "container", "div"}
# Directives whose argument is a signature: Sphinx's domain object directives.
SIGNATURES = {
    "function", "class", "method", "staticmethod", "classmethod", "attribute", "property",
    "data", "exception", "decorator", "decoratormethod", "module", "confval", "option",
    "cmdoption", "envvar", "describe", "object", "program", "type", "member", "macro", "var",
    "struct", "enum", "enumerator", "union", "concept", "directive", "role", "event",
    "setting", "templatetag", "templatefilter", "fixture",
}  # fmt: skip
# (sphinx-tabs' `code-tab` too: its argument is the language, its body the code.)
CODE = {
    "code-block", "sourcecode", "code", "code-cell", "doctest", "testcode", "testoutput",
    "code-tab",
}  # fmt: skip
INCLUDES = {"literalinclude", "include"}
OVERRIDDEN = CODE | INCLUDES | {"class"}  # docutils' meaning of these is not Sphinx's
# Navigation, build settings and setup code: nothing a reader of the page sees as text.
SILENT = {
    "toctree", "index", "currentmodule", "highlight", "tabularcolumns", "meta", "default-role",
    "default-domain", "sectionauthor", "moduleauthor", "codeauthor", "testsetup",
    "testcleanup", "raw", "image", "contents", "sectnum", "only-html", "spelling:word-list",
    "rst-class", "py:currentmodule",
}  # fmt: skip
# Roles that name code objects: shown as code, like Sphinx does.
CODE_ROLES = {
    "func", "meth", "class", "attr", "data", "exc", "obj", "mod", "const", "confval",
    "option", "envvar", "program", "command", "file", "samp", "kbd", "type", "member",
    "macro", "var", "struct", "enum", "enumerator", "union", "expr", "code", "literal",
}  # fmt: skip

# Bounded name lengths keep the scans linear on any input.
_DIRECTIVE_NAME = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w:.+-]{0,60})[ \t]*::", re.M)
_ROLE_NAME = re.compile(r":([A-Za-z][\w.+-]{0,40}(?::[\w.+-]{1,40}){0,2}):`")


def family(name: str) -> str:
    """What a directive is, as text: signature, label, container, code, include, autodoc,
    silent, or unknown (its body is kept as text all the same)."""
    name = name.lower()
    local = name.rsplit(":", 1)[-1]
    if name in SILENT or local in SILENT:
        return "silent"
    if name in LABELS:
        return "label"
    if name in CODE:
        return "code"
    if name in INCLUDES:
        return "include"
    if local.startswith("auto"):
        return "autodoc"
    if name in CONTAINERS or local in CONTAINERS:
        return "container"
    if ":" in name or local in SIGNATURES:
        return "signature"
    return "unknown"


# Statements and expressions prose never parses into: a body that holds one is code.
_CODE_NODES = (
    ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef,
    ast.ClassDef, ast.Import, ast.ImportFrom, ast.For, ast.While, ast.If, ast.With, ast.Return,
)  # fmt: skip


def is_python(lines: Iterable[str]) -> bool:
    """Whether a directive's body is Python code: it parses, and holds more than a bare
    name or constant ("Deprecated" parses too). Prose (a sentence, a field list, a
    doctest's `>>>`) does not parse. A line such as "Default: 30" or "Example: f(1)"
    parses as an annotation without a value: a label and its value, not code, so such
    lines are not counted. In the worker, under the parse limits, like docutils."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    statements = [s for s in tree.body if not (isinstance(s, ast.AnnAssign) and s.value is None)]
    return any(isinstance(node, _CODE_NODES) for s in statements for node in ast.walk(s))


def label(name: str, argument: str) -> str:
    """The lead of an admonition: "Changed in version 2.0: what changed" (a version
    directive's argument is the version, then the first words of its note), "See also:"."""
    lead = LABELS.get(name.lower(), "")
    argument = argument.strip()
    if lead.endswith(" version") and argument:
        version, _, rest = argument.partition(" ")
        return f"{lead} {version}: {rest}".strip()
    return f"{lead}: {argument}".strip()


def lead_line(name: str, argument: str) -> str:
    """The line a directive starts with as text: its label, title, signature (bare: the
    caller shows it as code), included file, or nothing."""
    kind = family(name)
    if kind == "silent" or name.lower() in UNTITLED:
        return ""
    if kind == "label":
        return label(name, argument)
    if kind == "include":
        return f"(includes {argument})" if argument else ""
    return argument


def role_text(text: str) -> str:
    """What a role shows: the title of `title <target>`, else the target without `~`/`!`
    (`~a.b.C` shows `C`)."""
    text = text.strip()
    target = text
    if text.endswith(">") and "<" in text:  # string operations: linear on any role text
        title, _, target = text[:-1].rpartition("<")
        if title.strip():
            return " ".join(title.split())
    target = target.strip().lstrip("!")
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return target


def is_code_role(name: str) -> bool:
    return name.lower().rsplit(":", 1)[-1] in CODE_ROLES


def register_unknown(text: str) -> None:
    """Register a handler for each directive and role in `text` that docutils does not know
    (registration is per process; the parse worker is the process that reads files)."""
    from docutils.parsers.rst import directives, roles
    from docutils.parsers.rst.languages import en

    for name in {m.group(1).lower() for m in _DIRECTIVE_NAME.finditer(text)}:
        # docutils knows `code-block` as its own `code`, which refuses Sphinx's options
        # (`:caption:`, `:emphasize-lines:`) and drops the block, and `class` as a class
        # setter; Sphinx replaces both, so Sphinx's meaning wins.
        known = name in directives._directive_registry or name in en.directives
        if known and name not in OVERRIDDEN:
            continue
        if name not in directives._directives:
            directives.register_directive(name, _directive_class())
    for name in {m.group(1).lower() for m in _ROLE_NAME.finditer(text)}:
        if name in roles._role_registry or name in en.roles or name in roles._roles:
            continue
        roles.register_local_role(name, _role)


def _role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: Any = None,
    content: Any = None,
) -> tuple[list[Any], list[Any]]:
    from docutils import nodes

    shown = role_text(text)
    node = nodes.literal(rawtext, shown) if is_code_role(name) else nodes.inline(rawtext, shown)
    return [node], []


class _AnyOption(dict[str, Any]):
    """Every option a Sphinx directive may take is accepted and ignored (`:noindex:`,
    `:type:`, `:caption:`, …); non-empty so docutils parses an option block at all."""

    def __missing__(self, key: str) -> Any:
        from docutils.parsers.rst import directives

        return directives.unchanged


_CLASS: list[type] = []


def _directive_class() -> type:
    """One Directive subclass serves every unknown name (built once, docutils imported
    only when a reST file is read)."""
    if _CLASS:
        return _CLASS[0]
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class SphinxDirective(Directive):
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec = _AnyOption(name=directives.unchanged)

        def run(self) -> list[Any]:
            kind = family(self.name)
            argument = " ".join(self.arguments[0].split()) if self.arguments else ""
            if kind == "silent":
                return []
            if kind == "code":
                source = "\n".join(self.content)
                block = nodes.literal_block(source, source, classes=[argument.split(" ")[0]])
                block.line = self.content_offset + 1
                return [block] if source.strip() else []
            lead = lead_line(self.name, argument)
            out: list[Any] = []
            if lead:
                signature = kind in ("signature", "autodoc")
                if signature:
                    inner = [nodes.literal(lead, lead)]
                else:  # "Changed in version 3.1: uses :func:`x`": its roles are read too
                    inner, _ = self.state.inline_text(lead, self.lineno)
                # The raw argument keeps its line breaks, so the lines it spans are known.
                raw = self.arguments[0] if self.arguments else lead
                para = nodes.paragraph(raw, "", *inner, classes=["signature"] if signature else [])
                para.line = self.lineno
                out.append(para)
            if self.content and kind in ("signature", "unknown") and is_python(self.content):
                # An extension's example (click's `click:example::`): a page shows it as
                # code; read as reST, `if x:` + an indented line became "if x:: y".
                source = "\n".join(self.content)
                block = nodes.literal_block(source, source, classes=["python"])
                block.line = self.content_offset + 1
                out.append(block)
            elif self.content and kind != "include":
                box = nodes.container()
                self.state.nested_parse(self.content, self.content_offset, box)
                out.append(box)
            return out

    _CLASS.append(SphinxDirective)
    return SphinxDirective
