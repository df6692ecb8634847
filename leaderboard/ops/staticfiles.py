"""Serve plotly.js from the plotly Python package itself.

plotly ships ``plotly.min.js`` in its ``package_data/`` folder. This finder exposes
exactly that one file as ``vendor/plotly/plotly.min.js``, so templates use
``{% static 'vendor/plotly/plotly.min.js' %}``, ``collectstatic`` copies it, and no
copy of it lives in git or comes from a CDN. The rest of ``package_data/`` (a
widget bundle, sample datasets) is deliberately not exposed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import plotly
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.finders import BaseFinder
from django.core.checks import CheckMessage, Error
from django.core.files.storage import FileSystemStorage
from whitenoise.base import WhiteNoise
from whitenoise.middleware import WhiteNoiseMiddleware

PLOTLY_DIR = Path(plotly.__file__).resolve().parent / "package_data"
PLOTLY_FILE = "plotly.min.js"
PREFIX = "vendor/plotly"
PLOTLY_STATIC_PATH = f"{PREFIX}/{PLOTLY_FILE}"


class _PlotlyStorage(FileSystemStorage):
    # collectstatic and whitenoise both put a storage's ``prefix`` in front of its paths.
    prefix = PREFIX


class PlotlyFinder(BaseFinder):
    """A staticfiles finder for the single file ``vendor/plotly/plotly.min.js``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.storage = _PlotlyStorage(location=str(PLOTLY_DIR))

    def check(self, **kwargs) -> list[CheckMessage]:
        if not (PLOTLY_DIR / PLOTLY_FILE).is_file():
            return [Error(f"{PLOTLY_DIR / PLOTLY_FILE} is missing: reinstall the plotly package.", id="ops.E001")]
        return []

    # django-stubs says a miss is None unless find_all, but finders.find() would then collect None
    # as a match: a miss is [] either way, as Django's own finders answer.
    def find(self, path: str, find_all: bool = False, **kwargs) -> str | list[str]:  # type: ignore[override]
        find_all = find_all or kwargs.get("all", False)  # Django < 6 callers may still pass all=
        if path == PLOTLY_STATIC_PATH and (PLOTLY_DIR / PLOTLY_FILE).is_file():
            match = str(PLOTLY_DIR / PLOTLY_FILE)
            return [match] if find_all else match
        return []

    def list(self, ignore_patterns) -> Iterator[tuple[str, FileSystemStorage]]:
        if (PLOTLY_DIR / PLOTLY_FILE).is_file():
            yield PLOTLY_FILE, self.storage


# Files under vendor/ come from installed packages and change only when a pin in
# requirements.txt does; a day of browser caching is safe even without hashed names.
VENDOR_MAX_AGE = 24 * 3600


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """whitenoise, compressed and cacheable under ``DEBUG`` (``make run``) as well.

    With ``DEBUG`` on, whitenoise looks every file up again per request (so edits
    show at once) and finds it through the staticfiles finders, i.e. the source
    file, which has no ``.gz`` next to it. Here a copy collected into STATIC_ROOT
    (``make run`` runs ``collectstatic``, which writes ``.gz`` variants in DEBUG) is
    served first while it is at least as new as its source; a source edited after
    the last ``collectstatic`` still wins, uncompressed. Production (manifest
    storage, no autorefresh) is whitenoise's own behaviour.
    """

    def candidate_paths_for_url(self, url: str) -> Iterator[str]:
        if not self.autorefresh:
            yield from super().candidate_paths_for_url(url)
            return
        source = None
        if self.use_finders and url.startswith(self.static_prefix):
            source = finders.find(url[len(self.static_prefix) :]) or None
        collected = list(WhiteNoise.candidate_paths_for_url(self, url))
        for path in collected:
            if source is None or _mtime(path) >= _mtime(source):
                yield path
        if source:
            yield source

    def add_cache_headers(self, headers, path: str, url: str) -> None:
        super().add_cache_headers(headers, path, url)
        if url.startswith(f"{self.static_prefix}vendor/") and not self.immutable_file_test(path, url):
            headers["Cache-Control"] = f"max-age={max(VENDOR_MAX_AGE, self.max_age or 0)}, public"


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0
