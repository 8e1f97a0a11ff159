"""`rag search` previews a chunk by its words: a code chunk's Markdown fences are not
among them (each script's preview began "```sh #!/bin/sh", newuser44)."""

from __future__ import annotations

from ragcli import render

SCRIPT = '```sh\n#!/bin/sh\nif [ -n "$PUSH_REMOTE" ]; then\n\tgit push "$REMOTE"\nfi\n```'


def test_a_code_chunks_preview_starts_with_its_code() -> None:
    expected = '#!/bin/sh if [ -n "$PUSH_REMOTE" ]; then git push "$REMOTE" fi'
    assert render.snippet(SCRIPT) == expected
    prose = "Dogs travel free.\n\n~~~\nrag ask\n~~~\nInline ```code``` stays."
    assert render.snippet(prose) == "Dogs travel free. rag ask Inline ```code``` stays."


def test_the_preview_is_cut_at_its_width_after_the_fences_are_gone() -> None:
    long = "```python\n" + "word " * 200 + "\n```"
    preview = render.snippet(long, width=40)
    assert len(preview) <= 40 and preview.endswith("…") and "`" not in preview
