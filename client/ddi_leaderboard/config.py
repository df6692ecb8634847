"""Where the token lives: the user's config folder, readable by the user only (0600)."""

from __future__ import annotations

import json
import os
from pathlib import Path

DEFAULT_URL = "http://127.0.0.1:8000"
TOKEN_VARIABLE = "DDI_LEADERBOARD_TOKEN"
URL_VARIABLE = "DDI_LEADERBOARD_URL"


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ddi-leaderboard"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ddi-leaderboard"


def config_path() -> Path:
    return config_dir() / "config.json"


def load() -> dict:
    try:
        return json.loads(config_path().read_text())
    except (OSError, ValueError):
        return {}


def save(url: str, token: str) -> Path:
    """Store url and token; the file is created 0600 before anything is written to it."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"url": url, "token": token}, handle)
    os.chmod(path, 0o600)
    return path


def resolve(url: str | None, token: str | None) -> tuple[str, str | None]:
    """The URL and token to use: arguments, then the environment, then the saved config."""
    saved = load()
    return (
        (url or os.environ.get(URL_VARIABLE) or saved.get("url") or DEFAULT_URL).rstrip("/"),
        token or os.environ.get(TOKEN_VARIABLE) or saved.get("token"),
    )
