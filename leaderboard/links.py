"""Absolute links for places outside a request (emails, exports): SITE_URL plus a reversed path."""

from __future__ import annotations

from django.conf import settings


def site_url(path: str) -> str:
    """``path`` (from ``reverse`` or ``get_absolute_url``) prefixed with the public ``SITE_URL``."""
    return settings.SITE_URL.rstrip("/") + path
