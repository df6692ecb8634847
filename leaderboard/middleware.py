"""What every request passes: the client's address behind trusted proxies, and the headers every page gets."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse

# No inline scripts anywhere: every script is a file under /static/. Plotly.js
# injects <style> elements at run time, hence 'unsafe-inline' for styles only.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    """Add CONTENT_SECURITY_POLICY to every response that does not set its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


# --- the client's address behind trusted proxies ------------------------------------

# Headers only a trusted proxy may set; from anyone else they are dropped before any view sees them.
FORWARDED_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST", "HTTP_X_REAL_IP")
_CLIENT_KEY = "leaderboard.client_ip"


@dataclass(frozen=True)
class TrustedProxies:
    """``TRUSTED_PROXIES``: how many proxies stand in front of the site, or which addresses they have.

    ``count`` > 0: the peer is always the last of ``count`` proxies (the site is
    reachable through them only) and the client is the address ``count`` hops
    back in X-Forwarded-For. ``networks``: a peer in one of them is a proxy; the
    client is the first address, walking X-Forwarded-For from the right, that is
    not. Neither: nobody is trusted and REMOTE_ADDR is the client.
    """

    count: int = 0
    networks: tuple[IPv4Network | IPv6Network, ...] = ()

    @classmethod
    def parse(cls, raw: str) -> TrustedProxies:
        raw = raw.strip()
        if not raw:
            return cls()
        if raw.isdigit():
            return cls(count=int(raw))
        networks = []
        for item in (part.strip() for part in raw.split(",")):
            if not item:
                continue
            try:
                networks.append(ip_network(item, strict=False))
            except ValueError:
                raise ImproperlyConfigured(
                    f"TRUSTED_PROXIES: {item!r} is not an address or network (e.g. 10.0.0.5, 10.0.0.0/24) "
                    "and the whole value is not a count of proxies."
                ) from None
        return cls(networks=tuple(networks))

    def trusts(self, address: str) -> bool:
        if self.count:
            return True
        ip = _ip(address)
        return ip is not None and any(ip in network for network in self.networks)

    def client(self, peer: str, forwarded_for: str) -> str:
        """The client's address given the peer's (REMOTE_ADDR) and the X-Forwarded-For header."""
        hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
        if self.count:
            # Fewer hops than proxies: a request that did not pass them all; its earliest address is the client's.
            chain = [*hops, peer]
            candidate = chain[-min(self.count + 1, len(chain))]
            return candidate if _ip(candidate) is not None else peer
        client = peer
        while hops and self.trusts(client):
            hop = hops.pop()
            if _ip(hop) is None:  # not written by a proxy of ours: stop at the last address we can vouch for
                break
            client = hop
        return client


def _ip(text: str) -> IPv4Address | IPv6Address | None:
    try:
        return ip_address(text.strip("[]"))
    except ValueError:
        return None


@functools.lru_cache(maxsize=4)
def _parsed(raw: str) -> TrustedProxies:
    return TrustedProxies.parse(raw)


def trusted_proxies() -> TrustedProxies:
    return _parsed(getattr(settings, "TRUSTED_PROXIES", ""))


def client_ip(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the one trusted proxies forwarded.

    Every per-address limit, the API's throttles and the security log use this
    (and only this), so ``TRUSTED_PROXIES`` is the one setting that decides it.
    """
    meta = request.META
    if _CLIENT_KEY not in meta:
        peer = meta.get("REMOTE_ADDR", "") or "unknown"
        proxies = trusted_proxies()
        forwarded = meta.get("HTTP_X_FORWARDED_FOR", "")
        meta[_CLIENT_KEY] = proxies.client(peer, forwarded) if forwarded and proxies.trusts(peer) else peer
    return meta[_CLIENT_KEY]


class ClientAddressMiddleware:
    """First of all: drop forwarded headers a trusted proxy did not send, and settle the client's address.

    Without it, X-Forwarded-Proto from anyone would make a plain request look
    secure (SECURE_PROXY_SSL_HEADER) and code reading X-Forwarded-For (DRF's
    throttles by default) would take a client's word for its own address.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        trusted_proxies()  # a malformed TRUSTED_PROXIES stops the start, not the first request

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not trusted_proxies().trusts(request.META.get("REMOTE_ADDR", "")):
            for header in FORWARDED_HEADERS:
                request.META.pop(header, None)
        client_ip(request)
        return self.get_response(request)
