"""Client for the DDI Leaderboard API: ``Client(url, token).submit(task, path_or_dataframe, method=...)``.

No Django: httpx for the API, the repository's ``scoring`` package for the
offline checks, which are the server's own.
"""

from ddi_leaderboard.client import Client
from ddi_leaderboard.errors import (
    AuthError,
    ClientError,
    GaveUpWaiting,
    InvalidInput,
    InvalidSubmission,
    QuotaExceeded,
    ServerError,
)

__all__ = [
    "AuthError",
    "Client",
    "ClientError",
    "GaveUpWaiting",
    "InvalidInput",
    "InvalidSubmission",
    "QuotaExceeded",
    "ServerError",
]
__version__ = "1.0.0"
