"""A gunicorn worker whose kept database connection was dropped answers the next request, not a 500.

CONN_MAX_AGE keeps a connection between requests; when PostgreSQL drops it (a restart, a
failover, pg_terminate_backend) CONN_HEALTH_CHECKS makes the next request find out and
reconnect before using it. Without the check each gunicorn worker answered one 500.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from django.db import connection

from tests.conftest import REPO, process_env, wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def test_a_dropped_database_connection_costs_no_request_a_500(postgres, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(tmp_path / "gunicorn.log", "wb")  # noqa: SIM115 (closed below)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "leaderboard.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", "1"],
        cwd=REPO, env=process_env({"DB_CONN_MAX_AGE": "600"}), stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        page = f"http://127.0.0.1:{port}/challenges/"  # reads the database (the cached home page may not)
        wait_for(lambda: _status(page) == 200, timeout=60, message="gunicorn to serve the page")
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            assert cursor.fetchone()[0] >= 1  # gunicorn's kept connection

        assert [_status(page) for _ in range(3)] == [200, 200, 200], (tmp_path / "gunicorn.log").read_text()[-3000:]
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
