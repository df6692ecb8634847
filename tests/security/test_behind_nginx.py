"""Behind a real nginx (Debian's, started here on 127.0.0.1 with docs/examples/nginx/ddi-leaderboard.conf).

Every client reaches the site through nginx, so the site's peer is always 127.0.0.1; with
TRUSTED_PROXIES=127.0.0.1 each client is told apart by the address nginx forwards. The
clients speak from different loopback addresses (127.0.0.2, 127.0.0.3, ...), as people
from different networks would. Without the setting they would all share one address:
20 failed log-ins anywhere would block every log-in, 5 sign-ups exhaust sign-up for the site.
"""

from __future__ import annotations

import http.client
import re
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import urlencode, urlparse

import pytest

from tests.conftest import PASSWORD, REPO, require

NGINX = "/usr/sbin/nginx"
SITE_CONF = REPO / "docs" / "examples" / "nginx" / "ddi-leaderboard.conf"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Visitor:
    """A browser-like HTTP client speaking from its own loopback address, with cookies and CSRF tokens."""

    def __init__(self, base_url: str, source: str) -> None:
        parsed = urlparse(base_url)
        self.host, self.port, self.source = parsed.hostname, parsed.port, source
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30, source_address=(self.source, 0))
        all_headers = {"Host": f"{self.host}:{self.port}", **(headers or {})}
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if body is not None:
            data = urlencode(body, doseq=True)
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        text = response.read().decode(errors="replace")
        for value in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";")[0]
        conn.close()
        return response.status, text

    def post_form(self, path: str, data: dict, headers: dict | None = None):
        """GET the page for its CSRF token, then POST the form with it."""
        _, page = self.request("GET", path, headers=headers)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        return self.request("POST", path, {**data, "csrfmiddlewaretoken": token}, headers=headers)

    def log_in(self, username: str, password: str):
        return self.post_form("/accounts/login/", {"username": username, "password": password})[0]


@pytest.fixture
def nginx(live_server, tmp_path, settings):
    """nginx on a free port of 127.0.0.1 in front of the live server, with the documented site configuration."""
    require(Path(NGINX).exists(), f"{NGINX} is not installed (make nginx)")
    upstream = urlparse(live_server.url)
    port = free_port()
    site = SITE_CONF.read_text()
    site = re.sub(r"server 127\.0\.0\.1:8000;", f"server 127.0.0.1:{upstream.port};", site)
    site = re.sub(r"listen 80;", f"listen 127.0.0.1:{port};", site)
    (tmp_path / "site.conf").write_text(site)
    for folder in ("body", "proxy", "fastcgi", "uwsgi", "scgi", "logs"):
        (tmp_path / folder).mkdir()
    (tmp_path / "nginx.conf").write_text(
        f"""
daemon off;
worker_processes 1;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/logs/error.log;
events {{ worker_connections 64; }}
http {{
    access_log {tmp_path}/logs/access.log;
    client_body_temp_path {tmp_path}/body;
    proxy_temp_path {tmp_path}/proxy;
    fastcgi_temp_path {tmp_path}/fastcgi;
    uwsgi_temp_path {tmp_path}/uwsgi;
    scgi_temp_path {tmp_path}/scgi;
    include {tmp_path}/site.conf;
}}
"""
    )
    stderr = open(tmp_path / "logs" / "stderr.log", "wb")  # noqa: SIM115 (closed with nginx, below)
    process = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")], stdout=subprocess.DEVNULL, stderr=stderr
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"nginx did not start: {(tmp_path / 'logs' / 'stderr.log').read_text()}")
            time.sleep(0.1)
    settings.TRUSTED_PROXIES = "127.0.0.1"
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=20)
    stderr.close()


def test_failed_log_ins_from_one_network_do_not_block_log_ins_from_another(nginx, alice, charlie):
    guesser, owner = Visitor(nginx, "127.0.0.2"), Visitor(nginx, "127.0.0.3")
    for n in range(20):
        assert guesser.log_in(f"user{n}", "wrong") == 200
    assert guesser.log_in("charlie", PASSWORD) == 429

    assert owner.log_in("alice", PASSWORD) == 302


def test_a_stranger_behind_the_proxy_does_not_lock_alice_out(nginx, alice):
    stranger, alice_at_home = Visitor(nginx, "127.0.0.4"), Visitor(nginx, "127.0.0.5")
    for _ in range(8):
        stranger.log_in("alice", "wrong")
    assert stranger.log_in("alice", PASSWORD) == 429
    assert alice_at_home.log_in("alice", PASSWORD) == 302


def test_sign_ups_are_counted_per_client_not_for_the_whole_site(nginx):
    first, second = Visitor(nginx, "127.0.0.6"), Visitor(nginx, "127.0.0.7")

    def sign_up(visitor: Visitor, n: int) -> int:
        data = {"username": f"user{n}", "email": f"u{n}@example.org", "password1": PASSWORD, "password2": PASSWORD}
        visitor.cookies.clear()
        return visitor.post_form("/accounts/signup/", data)[0]

    assert [sign_up(first, n) for n in range(6)] == [302] * 5 + [429]
    assert sign_up(second, 6) == 302


def test_a_forged_x_forwarded_for_through_nginx_does_not_escape_the_api_limit(nginx, settings):
    settings.API_RATE_LIMITS = {**settings.API_RATE_LIMITS, "token": "5/minute"}
    visitor, other = Visitor(nginx, "127.0.0.8"), Visitor(nginx, "127.0.0.9")
    codes = [
        visitor.request("GET", "/api/v1/tasks", headers={"X-Forwarded-For": f"198.51.100.{n}"})[0] for n in range(12)
    ]
    assert codes == [200] * 5 + [429] * 7
    assert other.request("GET", "/api/v1/tasks")[0] == 200


def test_straight_to_the_site_a_forged_x_forwarded_for_counts_for_nothing(nginx, live_server, settings):
    """The same site, reached without nginx: the peer is no trusted proxy, so its header is dropped."""
    settings.API_RATE_LIMITS = {**settings.API_RATE_LIMITS, "token": "5/minute"}
    direct = Visitor(f"http://127.0.0.1:{urlparse(live_server.url).port}", "127.0.0.10")
    codes = [
        direct.request("GET", "/api/v1/tasks", headers={"X-Forwarded-For": f"198.51.100.{n}"})[0] for n in range(8)
    ]
    assert codes == [200] * 5 + [429] * 3
