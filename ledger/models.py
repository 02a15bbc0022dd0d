"""The ledger: accounts, journal entries and their postings, and the hash chain over entries.

Append-only: PostgreSQL triggers (made by migration 0001, their functions in ledger/sql/) refuse
UPDATE and DELETE of entries, postings and seals; a statement-level trigger refuses, when the
statement that writes postings ends, an entry that does not balance per currency, and a deferred
constraint trigger an entry with fewer than two postings, at commit.
An account's `balance` is a cache of the sum of its postings (credits minus debits), updated in the
same transaction as the postings; player accounts never go below zero (CHECK constraint).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.actors import ActorType
from core.times import moment_text
from ledger.money import format_money


class AccountKind(models.TextChoices):
    PLAYER_WALLET = "player_wallet", "Player wallet"
    PLAYER_IN_PLAY = "player_in_play", "Player money in play"
    HOUSE = "house", "House bankroll (shard)"
    PARTNER = "partner_settlement", "Partner settlement"
    # A seamless partner's players' money, which the partner keeps in its own wallet: minus what its
    # wallet paid into rounds (debits) less what it was paid back (credits). It goes below zero.
    PARTNER_SEAMLESS = "partner_seamless", "Partner seamless wallet"
    OUTSIDE = "outside_world", "Outside world (operator cash movements)"


GUARDED_KINDS = (AccountKind.PLAYER_WALLET, AccountKind.PLAYER_IN_PLAY)


class Account(models.Model):
    kind = models.CharField(max_length=24, choices=AccountKind.choices)
    currency = models.CharField(max_length=3)
    player = models.ForeignKey(
        "accounts.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    partner = models.ForeignKey(
        "accounts.Partner", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    # The house bankroll is kept in shards so that no single row is locked by every round.
    shard = models.PositiveSmallIntegerField(default=0)
    balance = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "currency", "player"],
                condition=Q(player__isnull=False),
                name="account_one_per_player_kind",
            ),
            # A seamless partner's account is sharded like the house (by player): no row that every
            # round of the partner locks. A partner's settlement account is its shard 0.
            models.UniqueConstraint(
                fields=["kind", "currency", "partner", "shard"],
                condition=Q(partner__isnull=False),
                name="account_one_per_partner_kind",
            ),
            models.UniqueConstraint(
                fields=["kind", "currency", "shard"],
                condition=Q(player__isnull=True, partner__isnull=True),
                name="account_one_per_system_shard",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=GUARDED_KINDS) | Q(balance__gte=0),
                name="account_player_balance_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=GUARDED_KINDS, player__isnull=False)
                | Q(kind__in=["partner_settlement", "partner_seamless"], partner__isnull=False)
                | Q(kind__in=["house", "outside_world"], player__isnull=True, partner__isnull=True),
                name="account_owner_matches_kind",
            ),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="account_currency_iso"),
        ]

    def __str__(self) -> str:
        owner = self.player or self.partner or f"shard {self.shard}"
        return f"{self.get_kind_display()} {self.currency} ({owner})"


class EntryKind(models.TextChoices):
    DEPOSIT = "deposit", "Deposit (play money or cash in)"
    WITHDRAWAL = "withdrawal", "Withdrawal"
    STAKE = "stake", "Stake into play"
    SETTLEMENT = "settlement", "Round settlement"
    TRANSFER_IN = "transfer_in", "Partner transfer in"
    TRANSFER_OUT = "transfer_out", "Partner transfer out"
    ADJUSTMENT = "adjustment", "Operator adjustment"
    REVERSAL = "reversal", "Reversal"
    SEAMLESS_DEBIT = "seamless_debit", "Debited from a seamless partner's wallet"
    SEAMLESS_CREDIT = "seamless_credit", "Credited to a seamless partner's wallet"


class JournalEntry(models.Model):
    # Unique by the constraint below: one index, without the LIKE index `unique=True` would add.
    idempotency_key = models.CharField(max_length=300)
    # SHA-256 of the entry's requested content: a retry with the same key must ask for the same.
    request_hash = models.CharField(max_length=64)
    kind = models.CharField(max_length=16, choices=EntryKind.choices)
    reason = models.CharField(max_length=500, blank=True)
    actor_type = models.CharField(max_length=10, choices=ActorType.choices)
    actor_id = models.CharField(max_length=64)
    reference_type = models.CharField(max_length=32, blank=True)
    reference_id = models.CharField(max_length=64, blank=True)
    reverses = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversal")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        verbose_name_plural = "journal entries"
        indexes = [models.Index(fields=["reference_type", "reference_id"])]
        constraints = [models.UniqueConstraint(fields=["idempotency_key"], name="journalentry_key_once")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {self.reference_type}:{self.reference_id}".rstrip(":")


class Direction(models.TextChoices):
    DEBIT = "D", "Debit"
    CREDIT = "C", "Credit"


class Posting(models.Model):
    # Neither reference is a foreign key in the database: the trigger on new postings checks both
    # when they are written (ledger_check_new_postings: the account locked FOR KEY SHARE, as a foreign
    # key's check would), and ledger_keep_posted_accounts keeps an account with postings from being
    # deleted or renumbered (entries are append-only); no check is left for the commit (issue #34,
    # docs/BENCHMARKS.md "Posting in fewer statements").
    entry = models.ForeignKey(JournalEntry, on_delete=models.PROTECT, related_name="postings", db_constraint=False)
    # Indexed by the (account, id) index below; a second index on account alone is dead weight.
    account = models.ForeignKey(
        Account, on_delete=models.PROTECT, related_name="postings", db_index=False, db_constraint=False
    )
    direction = models.CharField(max_length=1, choices=Direction.choices)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    balance_after = models.BigIntegerField()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="posting_amount_positive"),
            models.CheckConstraint(condition=Q(direction__in=["D", "C"]), name="posting_direction_valid"),
        ]
        # An account's lines newest first, in the order its balance changed (ledger.selectors.account_lines).
        indexes = [models.Index(fields=["account", "id"], name="ledger_posting_account_line")]

    def __str__(self) -> str:
        return f"{self.get_direction_display()} {format_money(self.amount, self.currency)} on account {self.account_id}"

    @property
    def signed_amount(self) -> int:
        return self.amount if self.direction == Direction.CREDIT else -self.amount


class EntrySeal(models.Model):
    """A link of the hash chain: each seal's hash covers its entry's content and the previous hash.

    Entries are sealed in batches by one sealer (a Celery beat job) so that writers never wait on a
    single chain head; `ledger_verify` also seals before it checks.
    """

    sequence = models.BigAutoField(primary_key=True)
    entry = models.OneToOneField(JournalEntry, on_delete=models.PROTECT, related_name="seal")
    previous_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)
    sealed_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"#{self.sequence} {self.hash[:12]}"


class VerificationRun(models.Model):
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    ok = models.BooleanField()
    triggered_by = models.CharField(max_length=64)
    summary = models.JSONField()

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{'OK' if self.ok else 'PROBLEMS'} {moment_text(self.started_at)}"


class AdjustmentStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed"
    APPROVED = "approved", "Approved and posted"
    REJECTED = "rejected", "Rejected"


class Adjustment(models.Model):
    """An operator's credit or debit of a player: one staff member proposes, another approves."""

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="adjustments")
    amount = models.BigIntegerField(help_text="Minor units: positive credits the player, negative debits.")
    currency = models.CharField(max_length=3)
    reason = models.CharField(max_length=500)
    status = models.CharField(max_length=10, choices=AdjustmentStatus.choices, default=AdjustmentStatus.PROPOSED)
    proposed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    proposed_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    entry = models.OneToOneField(
        JournalEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="adjustment"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="adjustment_amount_not_zero"),
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("proposed_by")),
                name="adjustment_four_eyes",
            ),
        ]

    def __str__(self) -> str:
        return f"Adjustment #{self.pk} {format_money(self.amount, self.currency)} for {self.player}"
