"""One frozen settings object, built once: defaults ← TOML file ← RAG_* env ← flags.

Every key is documented in the README with its default and environment variable. An
unknown key or a value of the wrong type stops start-up with a message naming the key and
where it came from; `ragd config` prints the effective values and their origin.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragproto.errors import RagError
from ragproto.paths import default_socket_address, normalize_address


class ConfigError(RagError):
    type_name = "config"


def default_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ragd" / "config.toml"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ragd"


@dataclass(frozen=True)
class Settings:
    # where things live
    roots: tuple[str, ...] = ()
    data_dir: str = field(default_factory=lambda: str(default_data_dir()))
    socket: str = field(default_factory=default_socket_address)
    log_level: str = "INFO"
    # what gets indexed
    include: tuple[str, ...] = ("*.md", "*.markdown", "*.txt", "*.pdf")
    exclude: tuple[str, ...] = ()
    max_file_mb: float = 20.0
    follow_symlinks: bool = False
    debounce_ms: int = 250
    # embedding
    embed_precision: str = "auto"  # auto | float32 | bfloat16
    # retrieval and the gate
    top_k: int = 5
    candidates: int = 20
    support_floor: float = 0.42
    # answering
    model: str = "claude-sonnet-4-6"
    anthropic_base_url: str = ""
    api_timeout_s: float = 60.0
    api_max_retries: int = 2
    context_budget_tokens: int = 6000
    # serving
    max_message_bytes: int = 1 << 20
    shutdown_timeout_s: float = 10.0

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir)

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)

    def public(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


FIELDS = {f.name: f for f in dataclasses.fields(Settings)}
ENV_PREFIX = "RAG_"


def env_name(key: str) -> str:
    return ENV_PREFIX + key.upper()


def _coerce(key: str, value: Any, origin: str) -> Any:
    """Convert a TOML or environment value to the field's type, or fail naming the key."""
    default = getattr(Settings(), key)
    expected = type(default)
    try:
        if expected is tuple:
            if isinstance(value, str):
                items = [v.strip() for v in value.split(os.pathsep if key == "roots" else ",")]
                return tuple(v for v in items if v)
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return tuple(value)
            raise TypeError("a list of strings")
        if expected is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in {"1", "true", "yes", "on", "0", "false", "no", "off"}:
                return value.lower() in {"1", "true", "yes", "on"}
            raise TypeError("a boolean")
        if expected is int:
            if isinstance(value, bool):
                raise TypeError("an integer")
            if isinstance(value, int):
                return value
            if isinstance(value, str):
                return int(value)
            raise TypeError("an integer")
        if expected is float:
            if isinstance(value, bool):
                raise TypeError("a number")
            if isinstance(value, int | float):
                return float(value)
            if isinstance(value, str):
                return float(value)
            raise TypeError("a number")
        if isinstance(value, str):
            return value
        raise TypeError("a string")
    except (TypeError, ValueError) as exc:
        want = str(exc) if isinstance(exc, TypeError) else expected.__name__
        raise ConfigError(f"{origin}: key '{key}' must be {want}, got {value!r}") from None


def load_settings(
    config_path: Path | None = None,
    flags: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
) -> tuple[Settings, dict[str, str]]:
    """Build the settings and a map key → where its value came from."""
    environ = dict(os.environ) if environ is None else environ
    origins = {key: "default" for key in FIELDS}
    values: dict[str, Any] = {}
    path = config_path or Path(environ.get("RAG_CONFIG") or default_config_path())
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
        for key, value in data.items():
            if key not in FIELDS:
                known = ", ".join(sorted(FIELDS))
                raise ConfigError(f"{path}: unknown key '{key}' (known keys: {known})")
            values[key] = _coerce(key, value, str(path))
            origins[key] = f"file {path}"
    elif config_path is not None:
        raise ConfigError(f"{path}: config file not found")
    for key in FIELDS:
        name = env_name(key)
        if name in environ and environ[name] != "":
            values[key] = _coerce(key, environ[name], f"environment variable {name}")
            origins[key] = f"env {name}"
    for key, value in (flags or {}).items():
        if value is None or value == () or value == []:
            continue
        values[key] = _coerce(key, value, f"--{key.replace('_', '-')}")
        origins[key] = "flag"
    if "socket" in values:
        values["socket"] = normalize_address(values["socket"])
    if "data_dir" in values:
        values["data_dir"] = str(Path(values["data_dir"]).expanduser().absolute())
    if "roots" in values:
        values["roots"] = tuple(str(Path(r).expanduser().absolute()) for r in values["roots"])
    settings = Settings(**values)
    if settings.embed_precision not in {"auto", "float32", "bfloat16"}:
        raise ConfigError(f"{origins['embed_precision']}: key 'embed_precision' must be auto, float32 or bfloat16")
    return settings, origins
