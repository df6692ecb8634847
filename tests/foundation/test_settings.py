"""Settings from the environment: typed helpers, safe defaults, and the refusal to run insecurely.

Each case imports leaderboard/settings.py in a fresh interpreter with a chosen
environment (no PYTEST_VERSION, so it sees what a real process would see).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from leaderboard.settings import env_bool, env_int, env_list, env_path

REPO = Path(__file__).resolve().parents[2]

# Variables that would leak this run's configuration into the child.
_DROP = {
    "PYTEST_VERSION",
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "EMAIL_HOST",
    "EMAIL_BACKEND",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "MEDIA_ROOT",
    "PRIVATE_STORAGE_ROOT",
    "STORAGE_URL",
    "STATIC_ROOT",
    "CELERY_FS_DIR",
    "CACHE_DIR",
    "VAR_DIR",
}


def load_settings(tmp_path: Path, names: list[str], **env: str) -> subprocess.CompletedProcess:
    child_env = {k: v for k, v in os.environ.items() if k not in _DROP and k != "DJANGO_SETTINGS_MODULE"}
    child_env.setdefault("VAR_DIR", str(tmp_path / "var"))
    child_env.update(env)
    code = (
        "import json, leaderboard.settings as s; "
        f"print(json.dumps({{n: getattr(s, n) for n in {names!r}}}, default=str))"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, env=child_env, capture_output=True, text=True)


def settings_of(tmp_path: Path, *names: str, **env: str) -> dict:
    result = load_settings(tmp_path, list(names), **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_env_bool_reads_the_usual_spellings(monkeypatch):
    for raw, expected in [("1", True), ("TRUE", True), ("yes", True), ("on", True), ("0", False), ("off", False)]:
        monkeypatch.setenv("X_FLAG", raw)
        assert env_bool("X_FLAG", not expected) is expected
    monkeypatch.setenv("X_FLAG", "")
    assert env_bool("X_FLAG", True) is True


def test_env_bool_rejects_anything_else(monkeypatch):
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG"):
        env_bool("X_FLAG", False)


def test_env_int_parses_and_rejects(monkeypatch):
    monkeypatch.setenv("X_NUM", "42")
    assert env_int("X_NUM", 1) == 42
    monkeypatch.delenv("X_NUM")
    assert env_int("X_NUM", 7) == 7
    monkeypatch.setenv("X_NUM", "4.2")
    with pytest.raises(ImproperlyConfigured, match="X_NUM"):
        env_int("X_NUM", 1)


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch):
    monkeypatch.setenv("X_LIST", " a.example , b.example,, ")
    assert env_list("X_LIST", []) == ["a.example", "b.example"]
    monkeypatch.setenv("X_LIST", "  ")
    assert env_list("X_LIST", ["d"]) == ["d"]


def test_env_path_resolves_to_an_absolute_path(monkeypatch, tmp_path):
    monkeypatch.setenv("X_PATH", str(tmp_path / "a" / ".." / "b"))
    assert env_path("X_PATH", Path("/default")) == tmp_path / "b"
    monkeypatch.delenv("X_PATH")
    assert env_path("X_PATH", Path("/default")) == Path("/default")


def test_it_refuses_to_start_with_debug_off_and_the_default_secret_key(tmp_path):
    result = load_settings(tmp_path, ["DEBUG"], DEBUG="0")
    assert result.returncode != 0
    assert "Refusing to start with DEBUG off and the default SECRET_KEY" in result.stderr


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("s3cret-" * 7, "49 characters"),  # one short of Django's bar
        ("ab" * 40, "2 different"),
        ("django-insecure-" + "x1y2z3" * 8, "django-insecure-"),  # startproject's marker of a key not for production
    ],
)
def test_it_refuses_to_start_with_debug_off_and_a_weak_secret_key(tmp_path, key, why):
    result = load_settings(tmp_path, ["DEBUG"], DEBUG="0", SECRET_KEY=key)
    assert result.returncode != 0
    assert "Refusing to start with DEBUG off and a weak SECRET_KEY" in result.stderr
    assert "at least 50 characters, 5 of them different" in result.stderr


def test_a_short_secret_key_is_fine_with_debug_on(tmp_path):
    assert settings_of(tmp_path, "DEBUG", DEBUG="1", SECRET_KEY="short")["DEBUG"] is True


def test_it_starts_with_debug_off_and_a_real_secret_key(tmp_path):
    values = settings_of(tmp_path, "DEBUG", "STORAGES", DEBUG="0", SECRET_KEY="s3cret-" * 8)
    assert values["DEBUG"] is False
    # Production serves hashed, compressed files collected at build time.
    assert values["STORAGES"]["staticfiles"]["BACKEND"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"


def test_the_defaults_need_no_services(tmp_path):
    values = settings_of(
        tmp_path,
        "DEBUG",
        "DATABASES",
        "CELERY_BROKER_URL",
        "CELERY_BROKER_TRANSPORT_OPTIONS",
        "CACHES",
        "EMAIL_BACKEND",
    )
    assert values["DEBUG"] is True
    assert values["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert values["DATABASES"]["default"]["NAME"] == str(tmp_path / "var" / "db.sqlite3")
    assert values["CELERY_BROKER_URL"] == "filesystem://"
    assert values["CELERY_BROKER_TRANSPORT_OPTIONS"]["data_folder_in"] == str(tmp_path / "var" / "broker" / "queue")
    assert (tmp_path / "var" / "broker" / "queue").is_dir()
    assert values["CACHES"]["default"]["BACKEND"].endswith("FileBasedCache")
    assert values["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"


def test_without_var_dir_local_state_lives_under_the_repos_var_folder(tmp_path):
    values = settings_of(tmp_path, "VAR_DIR", "MEDIA_ROOT", "PRIVATE_STORAGE_ROOT", VAR_DIR="")
    assert values["VAR_DIR"] == str(REPO / "var")
    assert values["MEDIA_ROOT"] == str(REPO / "var" / "media")
    assert values["PRIVATE_STORAGE_ROOT"] == str(REPO / "var" / "private")


def test_database_url_switches_to_postgresql(tmp_path):
    values = settings_of(tmp_path, "DATABASES", DATABASE_URL="postgres://lb:pw@db.internal:5433/leaderboard")
    db = values["DATABASES"]["default"]
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["HOST"], db["PORT"], db["NAME"], db["USER"]) == ("db.internal", 5433, "leaderboard", "lb")


def test_redis_url_becomes_the_broker_and_the_cache(tmp_path):
    values = settings_of(
        tmp_path, "CELERY_BROKER_URL", "CACHES", "CELERY_BROKER_TRANSPORT_OPTIONS", REDIS_URL="redis://cache:6379/2"
    )
    assert values["CELERY_BROKER_URL"] == "redis://cache:6379/2"
    assert values["CACHES"]["default"]["LOCATION"] == "redis://cache:6379/2"
    assert values["CELERY_BROKER_TRANSPORT_OPTIONS"]["visibility_timeout"] >= 660


def test_celery_broker_url_wins_over_redis_url(tmp_path):
    values = settings_of(
        tmp_path, "CELERY_BROKER_URL", REDIS_URL="redis://cache:6379/2", CELERY_BROKER_URL="amqp://guest@mq//"
    )
    assert values["CELERY_BROKER_URL"] == "amqp://guest@mq//"


def test_hosts_storage_and_email_come_from_the_environment(tmp_path):
    values = settings_of(
        tmp_path,
        "ALLOWED_HOSTS",
        "MEDIA_ROOT",
        "PRIVATE_STORAGE_ROOT",
        "EMAIL_BACKEND",
        "EMAIL_HOST",
        "EMAIL_PORT",
        "EMAIL_USE_TLS",
        "EMAIL_USE_SSL",
        ALLOWED_HOSTS="ddi.example.org,www.ddi.example.org",
        MEDIA_ROOT=str(tmp_path / "media"),
        PRIVATE_STORAGE_ROOT=str(tmp_path / "private"),
        EMAIL_HOST="smtp.example.org",
        EMAIL_PORT="465",
        EMAIL_USE_SSL="1",
    )
    assert values["ALLOWED_HOSTS"] == ["ddi.example.org", "www.ddi.example.org"]
    assert values["MEDIA_ROOT"] == str(tmp_path / "media")
    assert values["PRIVATE_STORAGE_ROOT"] == str(tmp_path / "private")
    assert values["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (values["EMAIL_HOST"], values["EMAIL_PORT"]) == ("smtp.example.org", 465)
    assert (values["EMAIL_USE_SSL"], values["EMAIL_USE_TLS"]) == (True, False)


def test_a_malformed_variable_stops_the_start_with_its_name(tmp_path):
    result = load_settings(tmp_path, ["DEBUG"], DEBUG="perhaps")
    assert result.returncode != 0 and "DEBUG='perhaps' is not a boolean" in result.stderr


@pytest.mark.storage
def test_files_in_private_storage_are_never_served(client, settings):
    from django.core.files.base import ContentFile

    from leaderboard.storage import private_storage

    storage = private_storage()
    name = storage.save("truth/secret-labels.csv", ContentFile(b"Drug1,Interaction,Drug2\n"))
    try:
        assert client.get(storage.url(name)).status_code == 404
        assert client.get(f"/media/{name}").status_code == 404
        assert client.get(f"/static/{name}").status_code == 404
        root = Path(settings.PRIVATE_STORAGE_ROOT)
        assert not root.is_relative_to(Path(settings.STATIC_ROOT)) and not root.is_relative_to(settings.MEDIA_ROOT)
    finally:
        storage.delete(name)
