# ruff: noqa: DJ008  (rows of a benchmark: nobody reads them as text)
from django.conf import settings
from django.db import models


class Wallet(models.Model):
    """The floor's wallet: one balance row per player."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    balance = models.BigIntegerField()

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(balance__gte=0), name="fp_wallet_not_negative")]


class Bet(models.Model):
    wallet = models.ForeignKey(Wallet, on_delete=models.PROTECT)
    stake = models.BigIntegerField()
    payout = models.BigIntegerField()
    settled = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)


class IdempotencyRecord(models.Model):
    """The stored response of (caller, key): a replay answers it again."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    response = models.JSONField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="fp_idempotency_once")]


class AuditEvent(models.Model):
    actor = models.CharField(max_length=64)
    action = models.CharField(max_length=64)
    target = models.CharField(max_length=64)
    data = models.JSONField()
    at = models.DateTimeField(auto_now_add=True)


class Account(models.Model):
    """Double-entry variant: each player's wallet, in-play and house share (no hot house row)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    kind = models.CharField(max_length=16)
    balance = models.BigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="fp_account_once")]


class Entry(models.Model):
    key = models.CharField(max_length=255, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)


class Posting(models.Model):
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT)
    account = models.ForeignKey(Account, on_delete=models.PROTECT)
    amount = models.BigIntegerField()


class WalletCall(models.Model):
    """The `seamless` step: a call to the partner's wallet, recorded pending before it is made (so a
    crash after the call can be rolled back) and acknowledged when the partner answers 200."""

    transaction_id = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=8)  # debit, credit
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    bet = models.ForeignKey(Bet, null=True, on_delete=models.PROTECT)
    amount = models.BigIntegerField()
    status = models.CharField(max_length=16, default="pending")
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True)
