"""`include` and `skip_folders` match names, so a pattern holding '/' is one line.

`include` globs are matched against a file's name and `skip_folders` against each
folder's name, never against a path. `include = ["**/*.md"]` (a .gitignore's way of
saying "Markdown files anywhere") or `["docs/*.md"]` therefore matched no file: a
daemon started with it served an empty index, said nothing in its log, and only
`rag status` hinted `skipped 300 .md (file types not indexed; see include)` (attack33).
`skip_folders = ["build/tmp"]` entered the folder it was meant to skip.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragd.core.config import DEFAULT_INCLUDE, load_settings
from ragd.ingest.filters import PathFilter
from ragproto.errors import ConfigError


@pytest.mark.parametrize(
    ("line", "key", "pattern"),
    [
        ('include = ["*.txt", "**/*.md"]', "include", "**/*.md"),
        ('include = ["docs/*.md"]', "include", "docs/*.md"),
        ('skip_folders = [".*", "build/tmp"]', "skip_folders", "build/tmp"),
    ],
)
def test_a_name_pattern_holding_a_slash_is_one_line_naming_it(
    tmp_path: Path, line: str, key: str, pattern: str
) -> None:
    config = tmp_path / "ragd.toml"
    config.write_text(line + "\n")
    with pytest.raises(ConfigError) as refused:
        load_settings(config, None, {"HOME": str(tmp_path)})
    said = str(refused.value)
    assert f"key '{key}'" in said and repr(pattern) in said and "\n" not in said


def test_the_same_from_the_environment_names_the_variable(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "RAG_INCLUDE": "*.md, notes/*.txt"}
    with pytest.raises(ConfigError) as refused:
        load_settings(None, None, env)
    assert "RAG_INCLUDE" in str(refused.value) and "'notes/*.txt'" in str(refused.value)


def test_name_patterns_without_a_slash_are_taken(tmp_path: Path) -> None:
    config = tmp_path / "ragd.toml"
    config.write_text('include = ["*.md", "README"]\nskip_folders = ["build", ".*"]\n')
    settings, _ = load_settings(config, None, {"HOME": str(tmp_path)})
    assert settings.include == ("*.md", "README") and settings.skip_folders == ("build", ".*")


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("include = []", "include"),
        ('include = [""]', "include"),
        ('model = ""', "model"),
        ('model = "   "', "model"),
    ],
)
def test_a_setting_that_leaves_nothing_to_do_is_one_line(
    tmp_path: Path, line: str, key: str
) -> None:
    """attack33's leftovers: `include = []` (or only empty patterns) was taken and the
    daemon indexed nothing, saying so only as skipped file types in `rag status`; an empty
    `model` was taken and every answer with a key failed at the API."""
    config = tmp_path / "ragd.toml"
    config.write_text(line + "\n")
    with pytest.raises(ConfigError) as refused:
        load_settings(config, None, {"HOME": str(tmp_path)})
    said = str(refused.value)
    assert f"key '{key}'" in said and "\n" not in said


def test_patterns_starting_with_plus_add_to_the_defaults(tmp_path: Path) -> None:
    # newuser44: etckeeper.conf held the answer, and taking `*.conf` meant writing out
    # the hundred default patterns again.
    config = tmp_path / "ragd.toml"
    config.write_text('include = ["+*.conf", "+*.service"]\n')
    settings, _ = load_settings(config, None, {"HOME": str(tmp_path)})
    assert settings.include == (*DEFAULT_INCLUDE, "*.conf", "*.service")
    names = PathFilter(settings.include)
    assert names.includes("etc/etckeeper.conf") and names.includes("docs/README.md")
    from_env, _ = load_settings(None, None, {"HOME": str(tmp_path), "RAG_INCLUDE": "+*.conf"})
    assert from_env.include == (*DEFAULT_INCLUDE, "*.conf")


@pytest.mark.parametrize("added", ["+", "+ ", "+*.conf, +"])
def test_a_plus_with_no_pattern_after_it_is_one_line(tmp_path: Path, added: str) -> None:
    """attack48: `RAG_INCLUDE="+"` added the empty pattern, where `include = [""]` is
    refused."""
    with pytest.raises(ConfigError) as refused:
        load_settings(None, None, {"HOME": str(tmp_path), "RAG_INCLUDE": added})
    said = str(refused.value)
    assert "RAG_INCLUDE" in said and "'+' with no pattern after it" in said and "\n" not in said


def test_adding_and_replacing_patterns_at_once_is_one_line(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "RAG_INCLUDE": "*.md, +*.conf"}
    with pytest.raises(ConfigError) as refused:
        load_settings(None, None, env)
    said = str(refused.value)
    assert "RAG_INCLUDE" in said and "'+*.conf'" in said and "\n" not in said
