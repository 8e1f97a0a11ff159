"""Sphinx's reST and MyST Markdown: what directives and roles hold is indexed as text, under
the heading it is written under (issue 19 item 1)."""

from __future__ import annotations

import pytest

from ragd.ingest.chunking import HEADING_SEPARATOR, ChunkParams, chunk_document
from ragd.ingest.loaders import SkipFile, parse

SPHINX_RST = """\
Settings
========

Read :ref:`the loading rules <loading>` first; :class:`~harbour.config.Berth` holds them,
:func:`harbour.load` reads them, and :doc:`/tides` explains the tables.

Builtin values
--------------

.. py:data:: MOORING_LIMIT
   :type: int
   :value: 12

   How many hulls one pontoon takes before the warden closes it.

.. confval:: tide_source
   :default: ``"admiralty"``

   Which almanac the quay clock follows.

.. option:: --ballast KILOS

   Declared ballast, weighed at the slipway.

.. envvar:: HARBOUR_HOME

   Folder of the harbour's ledgers.

Notices
-------

.. note:: Gates close at dusk.

.. warning::
   Gulls steal sandwiches.

.. seealso:: The lighthouse keeper's almanac.

.. deprecated:: 2.0
   The brass bell signal.

.. versionadded:: 1.4
   Night pilotage permits.

.. versionchanged:: 3.1
   Fees are paid in :class:`~coin.Florin`
   coins.

Platforms
---------

.. tabs::

   .. tab:: Schooner

      Schooners moor on the eastern wall.

   .. tab:: Ketch

      Ketches use the inner basin.

.. code-block:: python
   :caption: moor.py
   :emphasize-lines: 1

   moor(vessel, wall="east")

.. literalinclude:: ../examples/pontoon.py
   :lines: 3-9

Reference
---------

.. autoclass:: harbour.Pontoon
   :members:

.. toctree::
   :maxdepth: 2

   secret-navigation-entry
"""


def sections(name: str, data: bytes) -> dict[str, str]:
    """Heading path → all the chunk text under it."""
    found: dict[str, str] = {}
    for chunk in chunk_document(parse(name, data)):
        found[chunk.heading_path] = found.get(chunk.heading_path, "") + "\n" + chunk.text
    return found


def missing(text: str, *phrases: str) -> list[str]:
    return [phrase for phrase in phrases if phrase not in text]


def test_sphinx_directives_are_indexed_under_their_heading() -> None:
    text = sections("settings.rst", SPHINX_RST.encode())
    path = HEADING_SEPARATOR.join
    assert (
        missing(
            text[path(["Settings", "Builtin values"])],
            "`MOORING_LIMIT`",
            "How many hulls one pontoon takes",
            "`tide_source`",
            "Which almanac the quay clock follows.",
            "`--ballast KILOS`",
            "Declared ballast, weighed at the slipway.",
            "`HARBOUR_HOME`",
            "Folder of the harbour's ledgers.",
        )
        == []
    )
    assert (
        missing(
            text[path(["Settings", "Notices"])],
            "Note:",
            "Gates close at dusk.",
            "Warning:",
            "Gulls steal sandwiches.",
            "See also: The lighthouse keeper's almanac.",
            "Deprecated since version 2.0: The brass bell signal.",
            "Added in version 1.4: Night pilotage permits.",
            "Changed in version 3.1: Fees are paid in Florin coins.",  # its role read too
        )
        == []
    )
    platforms = text[path(["Settings", "Platforms"])]
    assert missing(platforms, "Schooner", "Schooners moor on the eastern", "Ketches use") == []
    assert '```python\nmoor(vessel, wall="east")\n```' in platforms
    assert "(includes ../examples/pontoon.py)" in platforms
    assert "`harbour.Pontoon`" in text[path(["Settings", "Reference"])]
    everything = "\n".join(text.values())
    assert "secret-navigation-entry" not in everything  # a toctree is navigation, not text
    assert ":type:" not in everything and "maxdepth" not in everything  # options are not text


def test_roles_show_their_text() -> None:
    intro = sections("settings.rst", SPHINX_RST.encode())["Settings"]
    assert "Read the loading rules first;" in intro  # a title hides its target
    assert "Berth holds them" in intro and "harbour.config" not in intro  # `~` shows the last
    assert "harbour.load reads them" in intro
    assert "/tides explains the tables" in intro
    assert ":ref:" not in intro and ":class:" not in intro


def test_a_file_of_autodoc_directives_is_indexed_as_what_it_names() -> None:
    source = (
        b"API\n===\n\n.. automodule:: harbour.tides\n   :members:\n\n"
        b".. autofunction:: harbour.tides.next_high_water\n"
    )
    text = sections("api.rst", source)["API"]
    assert "`harbour.tides`" in text and "`harbour.tides.next_high_water`" in text


def test_directive_lines_are_located_in_the_file() -> None:
    chunks = chunk_document(parse("settings.rst", SPHINX_RST.encode()))
    source = SPHINX_RST.split("\n")
    for chunk in chunks:
        assert chunk.lines is not None
        first, last = chunk.lines
        quoted = " ".join(source[first - 1 : last]).lower()
        assert chunk.text.split()[0].strip("`:").lower() in quoted  # "Note:" at `.. note::`


MYST = """\
# Moorings

(moorings-target)=
## Rules

Use {class}`~harbour.Berth` and {ref}`the tide rules <tides>` daily.

```{note}
Bollards are painted yellow.
```

:::{warning}
:class: dropdown
Rope burns happen.
:::

````{tab-set}
```{tab-item} Summer
Summer berths face south.
```
````

```{code-block} python
:caption: tie.py

tie(knot="bowline")
```

```{eval-rst}
.. py:function:: harbour.moor(vessel)

   Moors a vessel. See :func:`harbour.unmoor`.
```

```{versionchanged} 2.2
Mooring is free on Sundays.
```

```{toctree}
:maxdepth: 1

hidden-page
```

```{r}
summary(tides)
```
"""


def test_myst_directives_and_roles_are_read_as_text() -> None:
    rules = sections("moorings.md", MYST.encode())["Moorings > Rules"]
    assert (
        missing(
            rules,
            "Use `Berth` and the tide rules daily.",
            "Note:",
            "Bollards are painted yellow.",
            "Warning:",
            "Rope burns happen.",
            "Summer",
            "Summer berths face south.",
            '```python\n\ntie(knot="bowline")\n```',
            "`harbour.moor(vessel)`",
            "Moors a vessel. See harbour.unmoor.",
            "Changed in version 2.2:",
            "Mooring is free on Sundays.",
            "```{r}\nsummary(tides)\n```",  # not a MyST directive: a code block, as before
        )
        == []
    )
    for markup in ("{note}", "{class}", "hidden-page", ":class: dropdown", "moorings-target"):
        assert markup not in rules


def test_myst_chunks_name_the_lines_they_come_from() -> None:
    source = MYST.split("\n")
    tiny = ChunkParams(target_tokens=8, overlap_tokens=0)  # about one block a chunk
    chunks = chunk_document(parse("moorings.md", MYST.encode()), tiny)
    assert len(chunks) > 8
    for chunk in chunks:
        assert chunk.lines is not None
        first, last = chunk.lines
        quoted = "\n".join(source[first - 1 : last]).lower()
        line = next(x for x in chunk.text.split("\n") if x.strip() and not x.startswith("```"))
        word = line.split()[0]  # the fence is ours: the first word the file has
        assert word.strip("`:").lower() in quoted


def test_markdown_without_myst_is_read_as_it_is() -> None:
    plain = b"# Quay\n\nRead `{x}` and {y} as they are.\n\n```js\nlet a = {b: 1}\n```\n"
    document = parse("quay.md", plain)
    assert document.text == plain.decode() and document.origins == []


def test_a_line_longer_than_docutils_reads_is_named_not_reported_as_no_text() -> None:
    # docutils drops a whole document holding a line over its limit; the reason says so
    # (it used to read "reStructuredText has no text"), here and in a MyST eval-rst block.
    long_line = "word " * 2_500
    rst = f"Berths\n======\n\nThe harbour has moorings.\n\n{long_line}\n"
    with pytest.raises(SkipFile, match=r"line 6 is 12,500 characters long \(docutils reads none"):
        parse("berths.rst", rst.encode())
    myst = f"# Berths\n\nMoorings.\n\n```{{eval-rst}}\n{long_line}\n```\n"
    with pytest.raises(SkipFile, match=r"line 6 is 12,500 characters long"):
        parse("berths.md", myst.encode())


def test_a_table_docutils_cannot_parse_is_kept_as_its_source_lines() -> None:
    # A cell running into the column margin (Celery's table of renamed settings, 120
    # rows) makes docutils drop the whole table; its words are kept, under its heading.
    rst = (
        "Settings\n========\n\nIntro.\n\nRenamed\n-------\n\n"
        "=========== ===========\n**Old**     **New**\n=========== ===========\n"
        "``BROKER``  :setting:`broker_url`\n``CELERYD_TIMER_PRECISION`` :setting:`timer`\n"
        "=========== ===========\n\nAfter the table.\n"
    )
    found = sections("settings.rst", rst.encode())
    under = found[HEADING_SEPARATOR.join(["Settings", "Renamed"])]
    assert not missing(under, "CELERYD_TIMER_PRECISION", "broker_url", "After the table."), under
    table = next(c for c in chunk_document(parse("s.rst", rst.encode())) if "BROKER" in c.text)
    assert table.lines is not None and table.lines[0] == 9  # the table's top border


def test_numbered_steps_and_table_captions_keep_their_text() -> None:
    # A reader cites "step 3" and reads a table's caption: pytest's docs number their
    # steps (`1.`, `#.`), trio's I/O page captions its `list-table`; both were dropped.
    rst = (
        "Launch\n======\n\n#. Open the boathouse.\n#. Check the oars.\n\n"
        "3) Push off.\n\n(c) Row east.\n(d) Row home.\n\niv. Moor.\n\n"
        ".. list-table:: Overview: tide tables by quay\n   :header-rows: 1\n\n"
        "   * - Quay\n     - Table\n   * - North\n     - Spring tides\n"
    )
    text = sections("launch.rst", rst.encode())["Launch"]
    assert not missing(
        text,
        "1. Open the boathouse.",
        "2. Check the oars.",
        "3) Push off.",
        "(c) Row east.",
        "(d) Row home.",
        "iv. Moor.",
        "Overview: tide tables by quay",
        "| North | Spring tides |",
    ), text


def test_a_section_title_inside_a_directive_is_kept_as_text() -> None:
    # Sphinx reads titles inside `.. only::` (pytest's changelog has two); docutils
    # reports each as an error and drops its words. A misplaced transition has none.
    rst = (
        "Harbour\n=======\n\nIntro.\n\n.. only:: html\n\n   Winter berths\n   ^^^^^^^^^^^^^\n\n"
        "   Boats winter ashore.\n\n.. note::\n\n   -----------\n\n   Mind the gap.\n"
    )
    chunks = chunk_document(parse("harbour.rst", rst.encode()))
    text = "\n".join(c.text for c in chunks)
    assert not missing(text, "Winter berths", "Boats winter ashore.", "Mind the gap."), text
    assert "^^^" not in text and "-----" not in text
    lines = rst.split("\n")
    berths = next(c for c in chunks if "Winter berths" in c.text)
    assert berths.lines is not None and "Intro." in lines[berths.lines[0] - 1]


def test_sphinx_file_settings_are_not_text() -> None:
    # `:orphan:` opening a file became a chunk of its own reading "orphan" (47 files of
    # the pytest, Pyramid and trio docs). An author field stays, as docutils shows it.
    rst = ":orphan:\n:tocdepth: 2\n:Author: Ann Quay\n\nTides\n=====\n\nHigh water at noon.\n"
    text = "\n".join(c.text for c in chunk_document(parse("tides.rst", rst.encode())))
    assert "orphan" not in text and "tocdepth" not in text, text
    assert not missing(text, "Ann Quay", "High water at noon."), text


def test_a_code_tab_is_code_and_its_language_is_no_title() -> None:
    # sphinx-tabs' `.. code-tab:: toml` holds code: read as a container, coverage's
    # `exclude_also` example became one-line paragraphs with "toml" as a line of text.
    rst = (
        "Excluding\n=========\n\n.. tabs::\n\n   .. code-tab:: toml\n\n"
        '      [tool.coverage.report]\n      exclude_also = [\n          "def __repr__",\n'
        "      ]\n\n   .. code-tab:: ini\n\n      [report]\n      exclude_also =\n"
        "          def __repr__\n"
    )
    text = sections("excluding.rst", rst.encode())["Excluding"]
    assert "```" in text, text
    assert '    "def __repr__",' in text and "exclude_also = [" in text, text
    assert not any(line.strip() in {"toml", "ini"} for line in text.splitlines()), text


def test_the_fields_a_file_opens_with_keep_their_lines_and_names() -> None:
    # docutils' docinfo rebuilt `:Author:` without its line (the chunk had none, as
    # `rag search --json` showed) and without its name ("Ann Quay", not "Author: Ann Quay").
    rst = ":Author: Ann Quay\n:Version: 2.1\n:orphan:\n\nTides\n=====\n\nHigh water at noon.\n"
    chunks = chunk_document(parse("tides.rst", rst.encode()))
    opening = next(c for c in chunks if "Ann Quay" in c.text)
    assert "Author: Ann Quay" in opening.text and "Version: 2.1" in opening.text
    # From the fields' first line; the body under the title is in the same chunk since
    # chunker 109 (a short text above a document's title is read with its first lines).
    assert opening.lines == (1, 8), opening.lines
    assert all(c.lines is not None for c in chunks)
    assert "orphan" not in "\n".join(c.text for c in chunks)


def test_an_extension_directive_holding_code_is_code() -> None:
    # click's docs write their examples as `.. click:example::` (an extension of its own):
    # the body was read as reST, so `if __name__ == '__main__'::` made a literal block of
    # the next line, and quotes showed "if __name__ == '__main__':: hello()", in no file.
    source = (
        b"Quickstart\n==========\n\nA command:\n\n.. click:example::\n\n"
        b"    import click\n\n    @click.command()\n    def hello():\n"
        b"        click.echo('Hello World!')\n\n"
        b"    if __name__ == '__main__':\n        hello()\n\n"
        b".. click:note::\n\n    Commands are plain functions.\n"
    )
    text = sections("quickstart.rst", source)["Quickstart"]
    assert (
        "```python\nimport click\n\n@click.command()\ndef hello():\n"
        "    click.echo('Hello World!')\n\nif __name__ == '__main__':\n    hello()\n```"
    ) in text, text
    assert "Commands are plain functions." in text  # prose in an unknown directive stays text


def test_a_label_and_value_body_is_prose_not_code() -> None:
    # "Default: 30" parses as Python, an annotation without a value (`x: int`): a setting's
    # description read as code was fenced as a Python block. Such lines are a label and
    # its value; code that holds a call or an assignment beside them is still code.
    source = (
        b"Settings\n========\n\n.. confval:: timeout\n\n    Type: int\n    Default: 30\n\n"
        b".. py:data:: RETRIES\n\n    Example: connect(retries=3)\n\n"
        b".. click:example::\n\n    name: str\n    greet(name)\n"
    )
    text = sections("settings.rst", source)["Settings"]
    assert "Type: int" in text and "Default: 30" in text, text
    assert "Example: connect(retries=3)" in text, text
    assert text.count("```python") == 1 and "```python\nname: str\ngreet(name)\n```" in text, text
