"""Formulas embedded in OpenDocument files, read as the StarMath source their author typed.

LibreOffice Math saves each formula of a text or a presentation as an embedded object,
`Object N/content.xml`: MathML whose `annotation` (encoding "StarMath 5.0") holds the
source written in the formula editor, `{df(x)} over {dx} = ln(x)`. The document's own
`content.xml` only points at it (`draw:object xlink:href="./Object N"`) from a frame
whose description is the word "formula", so a reader of the body alone saw "formula"
wherever one stood: 410 of them in LibreOffice's Math Guide, the manual of the formula
editor (newuser57). Each object is parsed on its own with no DTD loaded (its DOCTYPE
names `math.dtd`), no entity expanded and nothing fetched; one that cannot be read, or
holds no StarMath source, leaves its frame as it was.
"""

from __future__ import annotations

import zipfile
from typing import Any

from ragd.ingest.formats.markdown import clean

MAX_OBJECTS = 10_000  # embedded objects read per file
MAX_FORMULA_CHARS = 2_000
STARMATH = "StarMath"


def formulas(package: zipfile.ZipFile) -> dict[str, str]:
    """The StarMath source of each embedded formula of `package` (already checked for a
    bomb), by its object's name ("Object 12")."""
    found: dict[str, str] = {}
    objects = [n for n in package.namelist() if n.endswith("/content.xml") and n.count("/") == 1]
    for member in objects[:MAX_OBJECTS]:
        source = _starmath(package.read(member))
        if source:
            found[member.split("/", 1)[0]] = source
    return found


def _starmath(content: bytes) -> str:
    from lxml import etree

    parser = etree.XMLParser(
        load_dtd=False, no_network=True, resolve_entities=False, huge_tree=False, recover=True
    )
    try:
        root = etree.fromstring(content, parser)
    except etree.XMLSyntaxError:
        return ""
    if root is None:
        return ""
    for element in root.iter("{*}annotation"):
        if (element.get("encoding") or "").startswith(STARMATH):
            return clean("".join(element.itertext()))[:MAX_FORMULA_CHARS]
    return ""


def show_formulas(root: Any, sources: dict[str, str]) -> None:
    """Each frame in `root` (an odfpy element) that embeds one of the formulas `sources`
    names is replaced by the formula's source, set apart from the words beside it."""
    from odf.element import Text
    from odf.namespaces import XLINKNS

    if not sources:
        return
    for frame in _frames(root):
        for child in frame.childNodes:
            if getattr(child, "qname", None) and child.qname[1] == "object":
                href = child.getAttrNS(XLINKNS, "href") or ""
                source = sources.get(href.removeprefix("./").rstrip("/"))
                if source:
                    shown = f"{_blank(frame.previousSibling, -1)}{source}"
                    shown += _blank(frame.nextSibling, 0)
                    frame.parentNode.insertBefore(Text(shown), frame)
                    frame.parentNode.removeChild(frame)
                break


def _blank(neighbour: Any, end: int) -> str:
    """A blank to put between the formula and `neighbour` (the node before it, `end`
    -1, or after it, 0), unless there is none or its text has one there already."""
    if neighbour is None:
        return ""
    if neighbour.nodeType == neighbour.TEXT_NODE and neighbour.data[end:][:1].isspace():
        return ""
    return " "


def _frames(root: Any) -> list[Any]:
    """Every `draw:frame` under `root`, found with a stack (no recursion)."""
    found = []
    stack = list(root.childNodes)
    while stack:
        node = stack.pop()
        if getattr(node, "qname", None) and node.qname[1] == "frame":
            found.append(node)
        stack.extend(getattr(node, "childNodes", ()))
    return found
