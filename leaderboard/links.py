"""Absolute links to this site, for places without a request (emails, exports, worker tasks).

Every absolute link is built here from ``settings.SITE_URL``, which ``manage.py runall
--port`` (and ``make run PORT=...``) set for the processes they start, so links follow
the port the site really listens on.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse


def absolute_url(path: str) -> str:
    """``SITE_URL`` joined with a site path (``/submissions/1/``), one slash between them."""
    return f"{settings.SITE_URL.rstrip('/')}/{path.lstrip('/')}"


def absolute_reverse(viewname: str, *args: object) -> str:
    """``absolute_url(reverse(viewname, args=args))``."""
    return absolute_url(reverse(viewname, args=args or None))
