"""Upload limits enforced while the body streams in, before Django writes it to a temporary file.

``CappedUploadHandler`` runs first among ``FILE_UPLOAD_HANDLERS``: a request
whose declared length is over ``MAX_UPLOAD_BYTES`` is cut off at its first
file chunk (nothing written), and a file that grows past
``SUBMISSION_MAX_BYTES`` while streaming (a chunked body, a lying
Content-Length) is cut off at the chunk that crosses it. Django then closes
the temporary file, which deletes it, and the form or the API reads the
reason from ``request.upload_refused``. The form fields sent before the file
(the CSRF token first) are kept, so the page can say why.

``UploadSlotsMiddleware`` limits concurrent uploads per user (the API's
upload endpoints take the same user's slots) or, logged out, per client
address to ``MAX_CONCURRENT_UPLOADS``.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

from leaderboard.middleware import client_ip
from leaderboard.submissions.forms import megabytes

log = logging.getLogger(__name__)


def max_request_bytes() -> int:
    return int(getattr(settings, "MAX_UPLOAD_BYTES", settings.SUBMISSION_MAX_BYTES + 1024 * 1024))


class CappedUploadHandler(FileUploadHandler):
    """Stops an upload past the size caps before the next handlers store its bytes."""

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        self.declared_too_large = content_length > max_request_bytes()
        self.received = 0
        return None  # parse as usual, so the fields before the file arrive

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.declared_too_large or self.received > settings.SUBMISSION_MAX_BYTES:
            limit = settings.SUBMISSION_MAX_BYTES
            self.request.upload_refused = (  # type: ignore[union-attr]  # the handler always has its request
                f"The file was stopped at {megabytes(self.received)}: the limit is {megabytes(limit)}. "
                "Nothing was stored."
            )
            log.info("upload cut off at %d bytes (limit %d)", self.received, limit)
            # connection_reset: do not read the rest of the body either.
            raise StopUpload(connection_reset=True)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler builds the file


def upload_refused(request: HttpRequest) -> str:
    """Why the upload handler cut this request's file off, or ""."""
    return getattr(request, "upload_refused", "")


# --- concurrent uploads ------------------------------------------------------------


def uploader_of(user) -> str:
    """The slot owner for a user, whether the upload comes from the site or with one of their API tokens."""
    return f"user:{user.pk}"


def _is_api(request: HttpRequest) -> bool:
    try:
        return resolve(request.path_info).namespace == "api"
    except Resolver404:
        return False


def _slot_key(uploader: str) -> str:
    return f"{getattr(settings, 'RATE_LIMIT_KEY_PREFIX', '')}uploads:{uploader}"


def acquire_slot(uploader: str) -> bool:
    """Take one of the uploader's concurrent-upload slots; False if all are taken."""
    key = _slot_key(uploader)
    try:
        # The timeout frees slots a killed process never released.
        cache.add(key, 0, timeout=int(getattr(settings, "UPLOAD_SLOT_TIMEOUT", 900)))
        taken = cache.incr(key)
    except Exception:  # the cache is down: let the upload through
        log.warning("upload slots: cache unavailable, not limiting", exc_info=True)
        return True
    if taken > max_concurrent_uploads():
        release_slot(uploader)
        return False
    return True


def release_slot(uploader: str) -> None:
    try:
        cache.decr(_slot_key(uploader))
    except Exception:  # the key expired or the cache is down
        pass


def max_concurrent_uploads() -> int:
    return int(getattr(settings, "MAX_CONCURRENT_UPLOADS", 2))


def slots_taken_message() -> str:
    limit = max_concurrent_uploads()
    return f"You already have {limit} uploads in progress; wait for one to finish and try again."


SLOT_RETRY_AFTER = "10"


class UploadSlotsMiddleware:
    """At most ``MAX_CONCURRENT_UPLOADS`` multipart POSTs at once per uploader (after authentication).

    The uploader is the logged-in user, else the client's address. API requests
    pass through: their token is authenticated by the API, whose upload
    endpoints take the same user's slot (``leaderboard.api.throttling.upload_slot``)
    before reading the body, so neither a reworded Authorization header nor a
    second token gives anyone more slots.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST" or not (request.content_type or "").startswith("multipart/"):
            return self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            uploader = uploader_of(user)
        elif _is_api(request):
            return self.get_response(request)
        else:
            uploader = "ip:" + client_ip(request)
        if not acquire_slot(uploader):
            response = HttpResponse(slots_taken_message(), status=429, content_type="text/plain; charset=utf-8")
            response["Retry-After"] = SLOT_RETRY_AFTER
            return response
        try:
            return self.get_response(request)
        finally:
            release_slot(uploader)
