"""API tokens: only a sha256 of each token is stored; the token itself is shown once."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    class Scope(models.TextChoices):
        # Each scope includes the ones before it (see leaderboard.api.tokens.SCOPE_ORDER).
        READ = "read", "Read: tasks, boards, your submissions"
        SUBMIT = "submit", "Submit: read, plus upload and change visibility"
        ORGANIZE = "organize", "Organize: submit, plus organizer actions"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.READ)
    # The first characters of the token ("ddi_ab12cd"), shown in lists so a user can tell tokens apart.
    prefix = models.CharField(max_length=16)
    # sha256 hex of the whole token: the lookup on every API request.
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()
