"""`exclude` keeps a folder out however it is written the way ignore files write it.

docs/security.md promises that `exclude` keeps anything out of the index, and so out of
any answer sent to a model. Its patterns were matched as shell globs against each
file's path and name only, so the ways people write "the folder `private`" in a
`.gitignore` (`private/`, `private`, `**/private/**`, `**/private`) matched no file
under it: the folder was indexed and quoted (attack33). A pattern is now also read as a
gitignore line relative to each root, and the globs still apply as before, so nothing
that was excluded is indexed now.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from ragd.core.config import load_settings
from ragd.ingest.filters import PathFilter
from ragd.ingest.walking import walk
from ragproto.errors import ConfigError

INCLUDE = ("*.md",)


def tree(root: Path) -> None:
    for rel in ("notes/plan.md", "private/salary.md", "private/deep/review.md", "a/private/x.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# A note\n")


@pytest.mark.parametrize("pattern", ["private/", "private", "**/private/**", "**/private"])
def test_a_folder_written_as_in_an_ignore_file_is_kept_out(tmp_path: Path, pattern: str) -> None:
    tree(tmp_path)
    path_filter = PathFilter(INCLUDE, exclude=(pattern,))
    found = {rel for rel, _ in walk(tmp_path, str(tmp_path), path_filter, False)}
    # Before: every file was found, private/salary.md included.
    assert found == {"notes/plan.md"}
    for rel in ("private/salary.md", "private/deep/review.md", "a/private/x.md"):
        assert not path_filter.accepts(PurePosixPath(rel)), rel  # the watcher's question


def test_an_ignore_file_pattern_anchored_at_the_root_stays_there(tmp_path: Path) -> None:
    tree(tmp_path)
    path_filter = PathFilter(INCLUDE, exclude=("/private/",))
    found = {rel for rel, _ in walk(tmp_path, str(tmp_path), path_filter, False)}
    assert found == {"notes/plan.md", "a/private/x.md"}


@pytest.mark.parametrize(
    ("pattern", "excluded"),
    [
        ("drafts/*", "drafts/deep/a.md"),  # a glob's * crosses folders: still excluded
        ("docs/*.md", "docs/sub/a.md"),
        ("*.secret.md", "deep/x.secret.md"),  # the file's name
    ],
)
def test_what_the_globs_excluded_stays_excluded(pattern: str, excluded: str) -> None:
    path_filter = PathFilter(INCLUDE, exclude=(pattern,))
    assert not path_filter.accepts(PurePosixPath(excluded))
    assert path_filter.accepts(PurePosixPath("kept/a.md"))


# "[z-a]": a range written backwards (re.error, not ValueError: it escaped as a traceback
# from `ragd serve`, `ragd check`, `ragd config` and a SIGHUP reload); "[[:foo:]]": a class
# RE2 does not know.
@pytest.mark.parametrize("pattern", ["!", "\\", "[z-a]", "[9-0].log", "[[:foo:]]"])
def test_a_pattern_that_cannot_be_read_is_one_line_naming_the_key(
    tmp_path: Path, pattern: str
) -> None:
    config = tmp_path / "ragd.toml"
    config.write_text(f"exclude = ['{pattern}', 'drafts/']\n")  # literal strings: no escapes
    with pytest.raises(ConfigError, match="key 'exclude'") as refused:
        load_settings(config, None, {"HOME": str(tmp_path)})
    assert "\n" not in str(refused.value)


def test_a_negation_line_lets_a_file_back_in(tmp_path: Path) -> None:
    """`!keep.md` after `*.md`, as a .gitignore writes "all Markdown but this one": the
    last matching line decides. The same patterns were also matched as globs, `*.md` among
    them, and a glob's verdict could not be undone: keep.md stayed out, though the
    setting's documentation reads its lines as a .gitignore's."""
    for rel in ("keep.md", "notes/keep.md", "drop.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# A note\n")
    path_filter = PathFilter(INCLUDE, exclude=("*.md", "!keep.md"))
    found = {rel for rel, _ in walk(tmp_path, str(tmp_path), path_filter, False)}
    assert found == {"keep.md", "notes/keep.md"}


def test_nothing_comes_back_from_inside_an_excluded_folder(tmp_path: Path) -> None:
    """git does not enter an excluded folder, so `!private/ok/` after `private/` lets
    nothing back in: the walk never entered private/, but the watcher's question about a
    file saved later in private/ok/ asked about its own folder only, which the negation
    matched last, and the file was indexed (until a restart's scan, which kept it)."""
    tree(tmp_path)
    (tmp_path / "private/ok").mkdir()
    (tmp_path / "private/ok/a.md").write_text("# A note\n")
    path_filter = PathFilter(INCLUDE, exclude=("private/", "!private/ok/"))
    found = {rel for rel, _ in walk(tmp_path, str(tmp_path), path_filter, False)}
    assert "private/ok/a.md" not in found
    for rel in ("private/ok/a.md", "private/salary.md"):
        assert not path_filter.accepts(PurePosixPath(rel), tmp_path / rel, str(tmp_path)), rel
