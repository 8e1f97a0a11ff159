"""A config file another user could have written is refused, never read.

The config file says where documents and the API key go (`anthropic_base_url`,
`openai_base_url`, `vector_store`), which folders are read and where the index lives.
Before (attack73): it was read whoever owned it and whatever its mode, so a
`~/.config/ragd/config.toml` left 666, or a `--config` file another local user owns (or
planted in a folder open to all), set `anthropic_base_url` to their server for the next
start or SIGHUP reload: every question, its passages and the key went there.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from ragd.core.config import load_settings, others_could_write
from ragproto.errors import ConfigError
from tests.support.commands import run
from tests.support.daemon import BIN, base_env

PLANTED = 'anthropic_base_url = "http://127.0.0.1:9/"\n'
NOT_ME = 54321  # a uid no test runs as; root may give a file to it without such a user


def _config(folder: Path, mode: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(PLANTED)
    path.chmod(mode)
    return path


def test_a_config_file_every_user_may_write_is_refused_named_or_at_the_default_place(
    tmp_path: Path,
) -> None:
    named = _config(tmp_path / "named", 0o666)
    with pytest.raises(ConfigError, match="writable by every user \\(mode 666\\)"):
        load_settings(named, environ={})
    default = _config(tmp_path / "home" / "ragd", 0o646)
    with pytest.raises(ConfigError, match="writable by every user \\(mode 646\\)") as refused:
        load_settings(None, environ={"XDG_CONFIG_HOME": str(tmp_path / "home")})
    assert str(default) in str(refused.value) and "chmod go-w" in str(refused.value)
    # Closed to others, the same file is read as before.
    default.chmod(0o600)
    settings, origins = load_settings(None, environ={"XDG_CONFIG_HOME": str(tmp_path / "home")})
    assert settings.anthropic_base_url == "http://127.0.0.1:9/"
    assert origins["anthropic_base_url"] == f"file {default}"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another uid needs root")
def test_a_config_file_of_another_user_is_refused_whatever_its_mode(tmp_path: Path) -> None:
    theirs = _config(tmp_path, 0o644)
    os.chown(theirs, NOT_ME, NOT_ME)
    with pytest.raises(ConfigError, match=f"belongs to uid {NOT_ME}, not to you"):
        load_settings(theirs, environ={})
    # Mine, but writable by a group that is not mine alone.
    os.chown(theirs, os.geteuid(), NOT_ME)
    theirs.chmod(0o664)
    with pytest.raises(ConfigError, match=f"writable by group {NOT_ME} .*not yours alone"):
        load_settings(theirs, environ={})
    theirs.chmod(0o644)
    assert load_settings(theirs, environ={})[0].anthropic_base_url == "http://127.0.0.1:9/"


def test_a_root_owned_config_file_closed_to_others_is_read(tmp_path: Path) -> None:
    """/etc-style: root's file, 644, is the administrator's, read by every user's ragd."""
    path = _config(tmp_path, 0o644)
    st = os.stat(path)
    if st.st_uid != 0 and os.geteuid() == 0:
        os.chown(path, 0, st.st_gid)
    assert others_could_write(os.stat(path)) == ""


def test_ragd_serve_with_a_config_others_may_write_is_one_line(tmp_path: Path) -> None:
    config = _config(tmp_path / "conf", 0o666)
    data_dir = tmp_path / "data"
    out = run(
        [BIN / "ragd", "serve", tmp_path, "--config", config, "--data-dir", data_dir],
        base_env(tmp_path),
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    assert "writable by every user" in out.stderr and "anthropic_base_url" in out.stderr
    assert not data_dir.exists()


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """A POSIX access ACL as Linux stores it: version 2, then (tag, permissions, id)."""
    undefined = 0xFFFFFFFF
    return struct.pack("<I", 2) + b"".join(
        struct.pack("<HHI", tag, perm, undefined if ident is None else ident)
        for tag, perm, ident in entries
    )


USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20


def _set_acl(path: Path, acl: bytes) -> bool:
    try:
        os.setxattr(path, "system.posix_acl_access", acl)
    except OSError:  # a file system without ACLs
        return False
    return True


def test_a_config_file_an_acl_lets_another_user_write_is_refused(tmp_path: Path) -> None:
    """review74: `setfacl -m u:OTHER:rw config.toml` on a 600 file shows as mode 660 of the
    user's own group, and had passed: the named user's write is read from the ACL."""
    path = _config(tmp_path, 0o600)
    theirs = _acl((USER_OBJ, 6, None), (USER, 6, NOT_ME), (GROUP_OBJ, 4, None), (MASK, 6, None),
                  (OTHER, 0, None))  # fmt: skip
    if not _set_acl(path, theirs):
        pytest.skip("this file system keeps no ACLs")
    with pytest.raises(ConfigError, match=f"lets uid {NOT_ME} write it"):
        load_settings(path, environ={})
    # A named group that is not the user's alone is refused as the owning group is.
    _set_acl(path, _acl((USER_OBJ, 6, None), (GROUP_OBJ, 4, None), (GROUP, 6, NOT_ME),
                        (MASK, 6, None), (OTHER, 0, None)))  # fmt: skip
    with pytest.raises(ConfigError, match=f"writable by group {NOT_ME}"):
        load_settings(path, environ={})
    # The mask that takes write away (chmod g-w) closes both: the file is read.
    _set_acl(path, _acl((USER_OBJ, 6, None), (USER, 6, NOT_ME), (GROUP_OBJ, 4, None),
                        (GROUP, 6, NOT_ME), (MASK, 4, None), (OTHER, 0, None)))  # fmt: skip
    assert load_settings(path, environ={})[0].anthropic_base_url == "http://127.0.0.1:9/"


def test_a_group_that_is_another_accounts_primary_group_is_not_mine_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review74: a group such as `users` that is every account's primary group lists none
    of them in /etc/group, so a config writable by it had passed as the user's own. The
    accounts are the system's; one more account with the user's primary group is added
    to what `pwd.getpwall` reports, as /etc/passwd would list it."""
    import pwd

    path = _config(tmp_path, 0o660)
    os.chown(path, os.geteuid(), os.getegid())
    assert others_could_write(os.stat(path)) == ""  # the group is the user's alone here
    other = pwd.struct_passwd(("other", "x", NOT_ME, os.getegid(), "", "/", "/bin/sh"))
    accounts = [*pwd.getpwall(), other]
    monkeypatch.setattr(pwd, "getpwall", lambda: accounts)
    assert "not yours alone" in others_could_write(os.stat(path))
