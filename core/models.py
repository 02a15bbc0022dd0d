from __future__ import annotations

from django.db import models

from core.times import moment_text


class AuditEvent(models.Model):
    """Who did what to which object, and when: every change of money or state leaves one."""

    actor_type = models.CharField(max_length=10)  # player, partner, operator, system
    actor_id = models.CharField(max_length=64)
    action = models.CharField(max_length=64)  # indexed below, as a plain btree (no LIKE index)
    object_type = models.CharField(max_length=32)
    object_id = models.CharField(max_length=64)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["object_type", "object_id"]),
            models.Index(fields=["action"], name="audit_action"),
        ]

    def __str__(self) -> str:
        who = f"{self.actor_type}:{self.actor_id}"
        return f"{moment_text(self.created_at)} {who} {self.action} {self.object_type}:{self.object_id}"


class IdempotencyRecord(models.Model):
    """The first response to a POST with an Idempotency-Key, replayed to every retry of it."""

    scope = models.CharField(max_length=80)  # the caller: "player:12" or "partner:3"
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField(null=True)
    response_body = models.JSONField(null=True)  # records stored before response_text (kept 48 hours)
    response_text = models.TextField(null=True)  # the first answer's body, exactly as it was sent
    response_content_type = models.CharField(max_length=64, blank=True)
    response_headers = models.JSONField(null=True)  # the headers of it a replay sends again
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "key"], name="idempotency_unique_per_caller")]

    def __str__(self) -> str:
        return f"{self.scope} {self.key}"


class RequestNonce(models.Model):
    """A signed request's nonce (API.md: a partner's `X-Nonce`), used once: kept here, where a Redis
    that lost its data cannot forget it, until its request's timestamp is stale (core/nonces.py)."""

    key = models.CharField(max_length=150, primary_key=True)  # "<signer>:<nonce>", e.g. "partner:3:9f2c..."
    created_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.key
