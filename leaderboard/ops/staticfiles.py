"""Serve plotly.js from the plotly Python package itself.

plotly ships ``plotly.min.js`` in its ``package_data/`` folder. This finder exposes
exactly that one file as ``vendor/plotly/plotly.min.js``, so templates use
``{% static 'vendor/plotly/plotly.min.js' %}``, ``collectstatic`` copies it, and no
copy of it lives in git or comes from a CDN. The rest of ``package_data/`` (a
widget bundle, sample datasets) is deliberately not exposed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.checks import Error
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).resolve().parent / "package_data"
PLOTLY_FILE = "plotly.min.js"
PREFIX = "vendor/plotly"
PLOTLY_STATIC_PATH = f"{PREFIX}/{PLOTLY_FILE}"


class PlotlyFinder(BaseFinder):
    """A staticfiles finder for the single file ``vendor/plotly/plotly.min.js``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(PLOTLY_DIR))
        # collectstatic and whitenoise both put a storage's ``prefix`` in front of its paths.
        self.storage.prefix = PREFIX

    def check(self, **kwargs) -> list[Error]:
        if not (PLOTLY_DIR / PLOTLY_FILE).is_file():
            return [Error(f"{PLOTLY_DIR / PLOTLY_FILE} is missing: reinstall the plotly package.", id="ops.E001")]
        return []

    def find(self, path: str, find_all: bool = False, **kwargs) -> str | list[str]:
        find_all = find_all or kwargs.get("all", False)  # Django < 6 callers may still pass all=
        if path == PLOTLY_STATIC_PATH and (PLOTLY_DIR / PLOTLY_FILE).is_file():
            match = str(PLOTLY_DIR / PLOTLY_FILE)
            return [match] if find_all else match
        # "Not found" is an empty list either way, as Django's own finders answer.
        return []

    def list(self, ignore_patterns) -> Iterator[tuple[str, FileSystemStorage]]:
        if (PLOTLY_DIR / PLOTLY_FILE).is_file():
            yield PLOTLY_FILE, self.storage
