"""A config file that is no file: one line naming what it is, never a wait, never ignored.

Before: `--config` naming a FIFO, /dev/zero or a folder said "config file not found" (it
was there), and the same at the default place (`~/.config/ragd/config.toml` made a FIFO or
a link to /dev/zero) was skipped without a word, so the daemon ran on defaults while the
user's settings sat there; a SIGHUP reload then fell back to every default. A FIFO swapped
in after the check blocked the read until a writer came.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragd.core.config import MAX_CONFIG_BYTES, load_settings
from ragproto.errors import ConfigError
from tests.support.commands import run
from tests.support.daemon import BIN, base_env


def _odd_files(tmp_path: Path) -> list[tuple[str, Path]]:
    """(what the error calls it, the path) for a FIFO, a link to /dev/zero, a folder."""
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.toml"
    zero.symlink_to("/dev/zero")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    return [("not a regular file", fifo), ("not a regular file", zero), ("a folder", folder)]


def test_a_named_config_that_is_no_file_says_what_it_is(tmp_path: Path) -> None:
    for kind, path in _odd_files(tmp_path):
        with pytest.raises(ConfigError, match=f"the config file is {kind}"):
            load_settings(path, environ={})
    dangling = tmp_path / "dangling.toml"
    dangling.symlink_to(tmp_path / "absent")
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(dangling, environ={})
    huge = tmp_path / "huge.toml"
    huge.write_text("# a comment line\n" * (MAX_CONFIG_BYTES // 16 + 1))
    with pytest.raises(ConfigError, match="over 1 MiB"):
        load_settings(huge, environ={})


def test_the_default_config_that_is_no_file_is_not_ignored(tmp_path: Path) -> None:
    for kind, odd in _odd_files(tmp_path):
        home = tmp_path / f"config-{odd.name}"
        (home / "ragd").mkdir(parents=True)
        os.rename(odd, home / "ragd" / "config.toml")
        with pytest.raises(ConfigError, match=f"the config file is {kind}"):
            load_settings(None, environ={"XDG_CONFIG_HOME": str(home)})
    # No file at all is still the defaults, without a word.
    settings, origins = load_settings(None, environ={"XDG_CONFIG_HOME": str(tmp_path / "none")})
    assert origins["top_k"] == "default" and settings.top_k >= 1


def test_ragd_serve_with_a_fifo_for_config_is_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    out = run(
        [BIN / "ragd", "serve", tmp_path, "--config", fifo, "--data-dir", tmp_path / "data"],
        base_env(tmp_path),
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "not a regular file" in out.stderr, out.stderr


def test_a_config_nested_deeper_than_the_toml_reader_goes_is_one_line(tmp_path: Path) -> None:
    """attack77: `top_k = [[[[…` or `{a={a={…` 5,000 deep (60 KB, under the 1 MiB cap) made
    Python's TOML reader recurse past its limit: `ragd config` and `ragd serve` printed a
    RecursionError traceback, and a SIGHUP reload logged `uncaught exception in
    ragd-reload` instead of refusing the file and keeping the running configuration."""
    arrays = tmp_path / "arrays.toml"
    arrays.write_text("top_k = " + "[" * 5000 + "]" * 5000 + "\n")
    tables = tmp_path / "tables.toml"
    tables.write_text("top_k = " + "{a=" * 5000 + "1" + "}" * 5000 + "\n")
    for path in (arrays, tables):
        with pytest.raises(ConfigError, match=f"{path}: not valid TOML .*nested"):
            load_settings(path, environ={})
    out = run([BIN / "ragd", "config", "--config", arrays], base_env(tmp_path))
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "nested" in out.stderr, out.stderr
