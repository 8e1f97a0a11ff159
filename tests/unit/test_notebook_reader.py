"""Jupyter notebooks (`ingest/formats/notebook.py`) through the loader, as the parse worker
reads them: a notebook whose metadata or one cell is not what the schema says keeps the
words of every other cell."""

from __future__ import annotations

import json

import pytest

from ragd.ingest.document import SkipFile
from ragd.ingest.loaders import parse


def notebook(cells: list[dict[str, object]], **metadata: object) -> bytes:
    return json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}
    ).encode()


def markdown(source: object) -> dict[str, object]:
    return {"cell_type": "markdown", "source": source, "metadata": {}}


def code(source: object) -> dict[str, object]:
    return {
        "cell_type": "code",
        "source": source,
        "metadata": {},
        "outputs": [],
        "execution_count": None,
    }


def test_metadata_of_another_shape_is_no_reason_to_lose_the_cells() -> None:
    """`"language_info": null` made the notebook "unreadable notebook (AttributeError:
    'NoneType' object has no attribute 'get')" (attack52): its cells were in no chunk."""
    cells = [markdown("# Moorings\nA bollard holds the line."), code("tie(bollard)")]
    for metadata in ({"language_info": None}, {"language_info": "python"}, {"kernelspec": [1]}):
        assert parse("n.ipynb", notebook(cells, **metadata)).text == (
            "# Moorings\nA bollard holds the line.\n\n```\ntie(bollard)\n```"
        )
    named = notebook(cells, language_info={"name": "python"}, kernelspec={"language": "r"})
    assert "```python\ntie(bollard)\n```" in parse("n.ipynb", named).text


def test_a_cell_whose_source_is_not_text_is_left_out_alone() -> None:
    """A number as a cell's source made the notebook "unreadable" (`'int' object has no
    attribute 'split'`). (A list holding a number still is: nbformat joins the lines.)"""
    cells = [markdown(5), code({"a": "b"}), markdown(["# Knots\n", "A hitch."])]
    assert parse("n.ipynb", notebook(cells)).text == "# Knots\nA hitch."


def raw(source: str, **metadata: object) -> dict[str, object]:
    return {"cell_type": "raw", "source": source, "metadata": metadata}


def test_raw_cells_keep_their_words() -> None:
    """A raw cell (what nbconvert passes through: reST, LaTeX, a citation) was dropped,
    words and all (attack52); it is kept as written, fenced in its declared format's
    language, and read as Markdown when it declares Markdown."""
    cells = [
        markdown("# Tides"),
        raw(".. note:: Spring tides follow the new moon.", raw_mimetype="text/restructuredtext"),
        raw("\\cite{tidal-atlas}", format="text/latex"),
        raw("## Neap tides\nThe range is smallest.", raw_mimetype="text/markdown"),
        raw("no format declared"),
    ]
    text = parse("n.ipynb", notebook(cells)).text
    assert "```rst\n.. note:: Spring tides follow the new moon.\n```" in text
    assert "```latex\n\\cite{tidal-atlas}\n```" in text
    assert "\n## Neap tides\nThe range is smallest." in text
    assert "```\nno format declared\n```" in text


def test_a_notebook_nbformat_refuses_keeps_the_words_of_its_cells() -> None:
    """One cell as a string, a cell with no `metadata`, a `metadata` list, no `nbformat`
    field: nbformat raised ("'str' object has no attribute 'get'", UnboundLocalError), the
    notebook was "unreadable" and every other cell's words lost (attack56)."""
    good = [markdown("# Knots\nA hitch holds."), code("tie(hitch)")]
    for cells, fields in (
        (["# a string", None, *good], {}),
        ([{"cell_type": "weird", "source": "x"}, *good], {}),
        (good, {"metadata": [1]}),
        (good, {"nbformat": None}),
    ):
        data = json.loads(notebook(cells))
        data.update(fields)
        text = parse("n.ipynb", json.dumps(data).encode()).text
        assert "A hitch holds." in text and "tie(hitch)" in text, (cells, fields)


def test_json_that_is_no_notebook_is_skipped_with_a_reason() -> None:
    with pytest.raises(SkipFile, match=r"damaged notebook \(JSON, but not an object\)"):
        parse("n.ipynb", b"[1, 2]")
