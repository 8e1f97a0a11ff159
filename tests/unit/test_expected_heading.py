"""An eval question names the section it expects as a reader sees it."""

from __future__ import annotations

from ragd.harness.evaluation import Expected


def test_a_section_matches_with_or_without_the_files_title_above_it() -> None:
    wanted = Expected("pyyaml/README.md", "Installation")
    assert wanted.matches("pyyaml/README.md", "Installation")
    assert wanted.matches("pyyaml/README.md", "Installation > From source")
    assert wanted.matches("pyyaml/README.md", "PyYAML > Installation")
    assert wanted.matches("pyyaml/README.md", "PyYAML > Installation > From source")


def test_other_sections_and_files_do_not_match() -> None:
    wanted = Expected("pyyaml/README.md", "Installation")
    assert not wanted.matches("pyyaml/README.md", "PyYAML > Testing")
    assert not wanted.matches("pyyaml/README.md", "Guide > Setup > Installation")
    assert not wanted.matches("pyyaml/README.md", "Installation notes")
    assert not wanted.matches("other/README.md", "Installation")
    assert not Expected("a.md", "Installation", "libyaml").matches("a.md", "Installation", "pip")
