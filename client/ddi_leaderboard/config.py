"""Where the tokens live: the user's config folder, readable by the user only (0600).

One token per site: ``{"url": <last site logged in to>, "sites": {<url>: <token>}}``. A saved
token is only ever sent to the site it was saved for, and no token is sent over plain http
except to this machine (127.0.0.1, localhost).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import urlparse

DEFAULT_URL = "http://127.0.0.1:8000"
TOKEN_VARIABLE = "DDI_LEADERBOARD_TOKEN"
URL_VARIABLE = "DDI_LEADERBOARD_URL"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class InsecureURL(ValueError):
    """A token would travel over plain http to another machine."""


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ddi-leaderboard"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ddi-leaderboard"


def config_path() -> Path:
    return config_dir() / "config.json"


def normalise(url: str) -> str:
    """The site's key: scheme and host in lower case, no trailing slash."""
    parts = urlparse(url.strip())
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}"


def load() -> dict:
    """The saved config; a file of the first format (one url, one token) reads as one site."""
    try:
        saved = json.loads(config_path().read_text())
    except (OSError, ValueError):
        return {"sites": {}}
    if not isinstance(saved, dict):
        return {"sites": {}}
    sites = saved.get("sites") if isinstance(saved.get("sites"), dict) else {}
    if saved.get("token") and saved.get("url"):
        sites = {normalise(saved["url"]): saved["token"], **sites}
    return {"url": saved.get("url"), "sites": sites}


def save(url: str, token: str) -> Path:
    """Store the token for ``url`` (other sites' tokens are kept); the file is created 0600 first."""
    saved = load()
    site = normalise(url)
    document = {"url": site, "sites": {**saved["sites"], site: token}}
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(document, handle, indent=1)
    os.chmod(path, 0o600)
    return path


def check_secure(url: str) -> None:
    """Raise InsecureURL unless a token may be sent to ``url``: https, or http to this machine."""
    parts = urlparse(url)
    if parts.scheme == "https" or (parts.scheme == "http" and (parts.hostname or "") in LOCAL_HOSTS):
        return
    raise InsecureURL(f"Refusing to send a token to {url}: use https:// (plain http only for 127.0.0.1 and localhost).")


def resolve(url: str | None, token: str | None) -> tuple[str, str | None]:
    """The URL and token to use: arguments, then the environment, then the token saved for that URL."""
    saved = load()
    site = normalise(url or os.environ.get(URL_VARIABLE) or saved.get("url") or DEFAULT_URL)
    return site, token or os.environ.get(TOKEN_VARIABLE) or saved["sites"].get(site)
