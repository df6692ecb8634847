"""Small helpers for the API tests."""

from __future__ import annotations


def bearer(token: str) -> dict:
    """Test-client keyword arguments that send ``Authorization: Bearer <token>``."""
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}
