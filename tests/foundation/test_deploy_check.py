"""Production settings (docs/deploy.md) pass `manage.py check --deploy`, and compose is secure by default."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO


def test_check_deploy_is_clean_with_the_documented_production_settings(tmp_path):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "VAR_DIR": str(tmp_path / "var"),
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "ddi.example.org",
        "SITE_URL": "https://ddi.example.org",
        "SECURE": "1",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_compose_is_secure_unless_told_otherwise():
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    assert compose["x-app"]["environment"]["SECURE"] == "${SECURE:-1}"


@pytest.mark.storage
def test_healthz_answers_plain_http_when_https_is_enforced(client, db, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200  # the container's health check asks over HTTP
    assert client.get("/").status_code == 301
