"""A name as `rag` prints it, control characters escaped, is read back to the name itself
when a user types it into `--in` (the source `rag search` showed as `evil\\x0aname.md`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragcli import render
from ragcli.scope import scope_paths

NAMES = ["evil\nname.md", "a\x1b]0;t\x07b.md", "tab\there\r.md", "bidi\u202eexe.md", "é日.md"]
# Names whose own backslashes spell one of shown's escapes: printed as they were, a
# file named `odd\x0aname.md` read back as `odd<LF>name.md` (another file, or none).
BACKSLASHED = ["odd\\x0aname.md", "\\x5c", "\\u202e.md", "a\\\n.md", "\\\\x1b"]


@pytest.mark.parametrize("name", NAMES + BACKSLASHED)
def test_unshown_reads_back_what_shown_printed(name: str) -> None:
    assert render.unshown(render.shown(name)) == name


def test_backslashes_shown_never_writes_stay_as_they_are() -> None:
    # `\x41` is a printable "A", `\x0A` not shown's spelling, `\q` no escape at all.
    for text in ("notes\\x41.md", "notes\\x0A.md", "C:\\quay\\log.md", "trail\\"):
        assert render.unshown(text) == text


def test_a_typed_scope_is_read_back_but_an_existing_path_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cwd = {"cwd": str(tmp_path)}  # sent with a value that goes as written
    assert (
        scope_paths(["docs/evil\\x0aname.md"], printed=True) == {"in": ["docs/evil\nname.md"]} | cwd
    )
    assert scope_paths(["docs/evil\\x0aname.md"]) == {"in": ["docs/evil\\x0aname.md"]} | cwd  # MCP
    (tmp_path / "odd\\x0aname.md").write_text("a file named with a backslash")
    assert scope_paths(["odd\\x0aname.md"], printed=True) == {
        "in": [str(tmp_path / "odd\\x0aname.md")]
    }


@given(st.text(alphabet=st.sampled_from("\\xu05c1ab\n\x1b\u202e"), max_size=12))
def test_every_printed_name_reads_back_to_itself(name: str) -> None:
    assert render.unshown(render.shown(name)) == name


def test_a_printed_backslashed_name_is_the_file_not_its_decoding(tmp_path: Path) -> None:
    literal, decoded = "odd\\x0aname.md", "odd\nname.md"
    assert render.shown(literal) != render.shown(decoded)  # two files, two spellings
    assert scope_paths([render.shown(literal)], printed=True)["in"] == [literal]


def test_an_outside_scope_is_named_whole_only_when_one_path_fits() -> None:
    from ragcli.scope import named_whole
    from ragproto.errors import OutsideRoots

    refused = OutsideRoots("--in etc: not inside a watched root (roots: notes)")
    one = named_whole(refused, {"in": ["/srv/etc", "/home/ann/notes"]})
    assert str(one) == "--in /srv/etc: not inside a watched root (roots: notes)"
    # Two paths sent with that last name: the reply cannot say which, so it stays as it is.
    two = named_whole(refused, {"in": ["/a/etc", "/b/etc"]})
    assert str(two) == str(refused)
