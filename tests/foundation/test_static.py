"""Static files: whitenoise serves our CSS and plotly.js from the plotly package itself (no CDN, no copy in git)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import plotly
import pytest
from django.conf import settings as django_settings
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.template import engines
from django.test import Client, override_settings

from leaderboard.ops.staticfiles import PLOTLY_STATIC_PATH

REPO = Path(__file__).resolve().parents[2]
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"


def test_the_plotly_path_is_the_documented_one():
    assert PLOTLY_STATIC_PATH == "vendor/plotly/plotly.min.js"


def test_the_finder_locates_plotly_js_inside_the_installed_package():
    assert finders.find("vendor/plotly/plotly.min.js") == str(PLOTLY_JS)
    assert finders.find("vendor/plotly/widgetbundle.js") is None
    assert finders.find("vendor/plotly/plotly.min.js", find_all=True) == [str(PLOTLY_JS)]


def test_the_static_tag_gives_the_plotly_url():
    html = engines["django"].from_string("{% load static %}{% static 'vendor/plotly/plotly.min.js' %}").render()
    assert html == "/static/vendor/plotly/plotly.min.js"


def test_no_copy_of_plotly_js_lives_in_the_repository():
    assert not list((REPO / "static").rglob("plotly*.js"))


def test_collectstatic_copies_plotly_and_the_stylesheet_and_whitenoise_serves_them(settings, tmp_path, db):
    settings.STATIC_ROOT = tmp_path / "static"
    call_command("collectstatic", interactive=False, verbosity=0)
    collected = tmp_path / "static" / "vendor" / "plotly"
    assert sorted(p.name for p in collected.iterdir()) == ["plotly.min.js"]
    assert (tmp_path / "static" / "css" / "site.css").is_file()

    client = Client()  # a new handler, so whitenoise scans the new STATIC_ROOT
    response = client.get("/static/vendor/plotly/plotly.min.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith(("application/javascript", "text/javascript"))
    head = b"".join(response.streaming_content)[:200]
    assert b"plotly.js" in head
    assert client.get("/static/css/site.css").status_code == 200


@pytest.mark.slow
def test_production_collectstatic_builds_a_manifest_with_plotly(tmp_path):
    """What the Dockerfile runs at build time: DEBUG off, a throwaway key, hashed and compressed files."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTEST_VERSION", "DATABASE_URL", "REDIS_URL"}}
    env.update(
        {
            "DEBUG": "0",
            "SECRET_KEY": "collectstatic-at-build-time-only-a-throwaway-key-that-signs-nothing",
            "STATIC_ROOT": str(tmp_path / "static"),
            "VAR_DIR": str(tmp_path / "var"),
        }
    )
    # As the image builds it: requirements.txt has no brotli, so gzip only. (The dev tools bring brotli in,
    # which would compress every file a second time, ~80 s on plotly.min.js, to test nothing we ship.)
    no_brotli = (
        "import runpy, sys, whitenoise.compress as c; c.brotli_installed = False; "
        "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    result = subprocess.run(
        [sys.executable, "-c", no_brotli, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    manifest = (tmp_path / "static" / "staticfiles.json").read_text()
    assert '"vendor/plotly/plotly.min.js"' in manifest
    assert list((tmp_path / "static" / "vendor" / "plotly").glob("plotly.min.*.js.gz"))


@pytest.fixture(scope="module")
def _debug_static_collected(tmp_path_factory):
    """make run's collectstatic (compressed, no manifest), once for the module: gzip only, as the image has it."""
    root = tmp_path_factory.mktemp("debug-static")
    source = root / "source"
    source.mkdir()
    for name in ("page.js", "edited.js"):
        (source / name).write_text("console.log('collected');\n" * 200)
    static_settings = {
        "STATICFILES_DIRS": [*django_settings.STATICFILES_DIRS, source],
        "STATIC_ROOT": root / "static",
        "STORAGES": {
            **django_settings.STORAGES,
            "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
        },
    }
    with override_settings(**static_settings), mock.patch("whitenoise.compress.brotli_installed", False):
        call_command("collectstatic", interactive=False, verbosity=0)
    return source, static_settings


@pytest.fixture
def debug_static(_debug_static_collected, settings, db):
    """The static setup of make run (DEBUG): manifest-free compressed storage, collected, autorefresh on."""
    source, static_settings = _debug_static_collected
    for name, value in static_settings.items():
        setattr(settings, name, value)
    settings.WHITENOISE_AUTOREFRESH = True
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_MAX_AGE = 0
    return source


def test_under_debug_plotly_is_served_compressed_and_cacheable_for_a_day(debug_static):
    response = Client().get("/static/vendor/plotly/plotly.min.js", HTTP_ACCEPT_ENCODING="gzip, br")
    assert response.status_code == 200
    # Brotli when the brotli package is installed (locust's HTTP client brings it in dev), gzip otherwise;
    # the tests collect with gzip only.
    assert response["Content-Encoding"] in {"gzip", "br"}
    assert int(response["Content-Length"]) < PLOTLY_JS.stat().st_size / 2
    assert response["Cache-Control"] == "max-age=86400, public"


def test_under_debug_our_own_files_are_compressed_and_revalidated(debug_static):
    response = Client().get("/static/page.js", HTTP_ACCEPT_ENCODING="gzip")
    assert response["Content-Encoding"] == "gzip"
    assert response["Cache-Control"] == "max-age=0, public"


def test_under_debug_a_source_edited_after_collectstatic_is_served_fresh(debug_static):
    edited = debug_static / "edited.js"  # (page.js stays as collected for the module's other tests)
    edited.write_text("console.log('edited');\n")
    later = edited.stat().st_mtime + 5
    os.utime(edited, (later, later))
    response = Client().get("/static/edited.js", HTTP_ACCEPT_ENCODING="gzip")
    assert b"".join(response.streaming_content) == b"console.log('edited');\n"
