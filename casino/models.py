from __future__ import annotations

import secrets
import uuid

from django.db import models
from django.db.models import F, Q

from casino.engine import Action, CasinoWarRules, ShuffleMode, TableLimits
from core.times import moment_text


class Table(models.Model):
    """A Casino War table: its rules (RULES.md section 3), limits, currency and open/closed state."""

    name = models.CharField(max_length=100, unique=True)
    currency = models.CharField(max_length=3, default="EUR")
    is_open = models.BooleanField(default=True)
    min_bet = models.PositiveBigIntegerField(help_text="Minor units")
    max_bet = models.PositiveBigIntegerField(help_text="Minor units")
    bet_step = models.PositiveBigIntegerField(default=100, help_text="Every bet is a multiple of this (minor units)")
    max_tie_bet = models.PositiveBigIntegerField(default=0, help_text="0: no tie bet at this table")
    decks = models.PositiveSmallIntegerField(default=6)
    burn = models.PositiveSmallIntegerField(default=3)
    tie_pays = models.PositiveSmallIntegerField(default=10)
    tie_after_tie_bonus = models.BooleanField(default=False)
    shuffle = models.CharField(
        max_length=10, choices=[(m.value, m.value) for m in ShuffleMode], default=ShuffleMode.FRESH
    )
    penetration = models.PositiveSmallIntegerField(
        default=75, help_text="Persistent shoe: percent dealt before the cut card"
    )
    decision_timeout_s = models.PositiveIntegerField(default=30)
    house_rule = models.CharField(max_length=10, choices=[(a.value, a.value) for a in Action], default=Action.WAR)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(decks__gte=1, decks__lte=8), name="table_decks_1_8"),
            models.CheckConstraint(condition=Q(burn__lte=5), name="table_burn_0_5"),
            models.CheckConstraint(condition=Q(tie_pays__gte=1, tie_pays__lte=30), name="table_tie_pays_1_30"),
            models.CheckConstraint(condition=Q(penetration__gte=50, penetration__lte=90), name="table_penetration"),
            models.CheckConstraint(
                condition=Q(bet_step__gte=1, min_bet__gte=F("bet_step"), max_bet__gte=F("min_bet")),
                name="table_limits_ordered",
            ),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="table_currency_iso"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def rules(self) -> CasinoWarRules:
        return CasinoWarRules(
            decks=self.decks,
            burn=self.burn,
            tie_pays=self.tie_pays,
            tie_after_tie_bonus=self.tie_after_tie_bonus,
            shuffle=ShuffleMode(self.shuffle),
            penetration=self.penetration,
            house_rule=Action(self.house_rule),
        )

    @property
    def limits(self) -> TableLimits:
        return TableLimits(
            min_bet=self.min_bet, max_bet=self.max_bet, bet_step=self.bet_step, max_tie_bet=self.max_tie_bet
        )


class TableChangeStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed"
    APPROVED = "approved", "Approved and applied"
    REJECTED = "rejected", "Rejected"


class TableChange(models.Model):
    """A new table, or new rules or limits for one: one staff member proposes, another approves
    (four eyes), as adjustments (casino/services/tables.py). The fields are the table's as it is
    to be; `before` keeps the table's as it was proposed: an approval applies only to that."""

    table = models.ForeignKey(
        Table,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="changes",
        help_text="The table to change; empty: a new table (made closed).",
    )
    name = models.CharField(max_length=100)
    currency = models.CharField(max_length=3, default="EUR")
    min_bet = models.PositiveBigIntegerField(help_text="Minor units")
    max_bet = models.PositiveBigIntegerField(help_text="Minor units")
    bet_step = models.PositiveBigIntegerField(default=100, help_text="Every bet is a multiple of this (minor units)")
    max_tie_bet = models.PositiveBigIntegerField(default=0, help_text="0: no tie bet at this table")
    decks = models.PositiveSmallIntegerField(default=6)
    burn = models.PositiveSmallIntegerField(default=3)
    tie_pays = models.PositiveSmallIntegerField(default=10)
    tie_after_tie_bonus = models.BooleanField(default=False)
    shuffle = models.CharField(
        max_length=10, choices=[(m.value, m.value) for m in ShuffleMode], default=ShuffleMode.FRESH
    )
    penetration = models.PositiveSmallIntegerField(
        default=75, help_text="Persistent shoe: percent dealt before the cut card"
    )
    decision_timeout_s = models.PositiveIntegerField(default=30)
    house_rule = models.CharField(max_length=10, choices=[(a.value, a.value) for a in Action], default=Action.WAR)
    before = models.JSONField(null=True, blank=True, editable=False)
    reason = models.CharField(max_length=500)
    status = models.CharField(max_length=10, choices=TableChangeStatus.choices, default=TableChangeStatus.PROPOSED)
    proposed_by = models.ForeignKey("accounts.User", on_delete=models.PROTECT, related_name="+")
    proposed_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey("accounts.User", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-proposed_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=F("proposed_by")), name="table_change_four_eyes"
            ),
        ]

    def __str__(self) -> str:
        return f"Change #{self.pk} of {self.table or 'a new table'}"


def server_seed_draw() -> str:
    return secrets.token_hex(32)


class SeedPair(models.Model):
    """A player's provably fair seed pair: the server seed's hash is shown before it is used and
    the seed itself once the player rotates it. The active pair also holds the next server seed,
    drawn in advance, whose hash is shown too: a rotation moves to it whatever client seed comes,
    so the server never picks a seed knowing the player's client seed (docs/FAIRNESS.md)."""

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="seed_pairs")
    server_seed = models.CharField(max_length=64)
    server_seed_hash = models.CharField(max_length=64, unique=True)
    client_seed = models.CharField(max_length=64)
    # Secret like `server_seed` until it is used; cleared when the pair is retired (the next pair has it).
    next_server_seed = models.CharField(max_length=64, blank=True, default=server_seed_draw)
    next_nonce = models.PositiveBigIntegerField(default=0)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revealed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player"], condition=Q(active=True), name="seedpair_one_active_per_player"),
            models.CheckConstraint(
                condition=Q(active=True) | Q(revealed_at__isnull=False), name="seedpair_revealed_when_retired"
            ),
            models.CheckConstraint(
                condition=Q(active=False) | ~Q(next_server_seed=""), name="seedpair_next_seed_committed_when_active"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.server_seed_hash[:12]}"


class ShoeState(models.Model):
    """A persistent shoe of one player at one table: shuffled from the nonce of the round that
    opened it, dealt from `position`, reshuffled once the cut card is reached."""

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    seed_pair = models.ForeignKey(SeedPair, on_delete=models.PROTECT, related_name="+")
    shuffle_nonce = models.PositiveBigIntegerField()
    position = models.PositiveIntegerField(default=0)
    cut = models.PositiveIntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "table"], name="shoe_one_per_player_table")]

    def __str__(self) -> str:
        return f"shoe of {self.player} at {self.table} ({self.position}/{self.cut})"


class RoundStatus(models.TextChoices):
    AWAITING_DECISION = "awaiting_decision", "Awaiting decision"
    RESOLVED = "resolved", "Resolved, settling"
    SETTLED = "settled", "Settled"


class RoundOutcome(models.TextChoices):
    """The engine's outcomes (`casino.engine.Outcome`) in the words the back office shows."""

    WIN = "win", "Won"
    LOSE = "lose", "Lost"
    SURRENDER = "surrender", "Surrendered"
    WAR_WIN = "war_win", "Won the war"
    WAR_LOSE = "war_lose", "Lost the war"
    WAR_TIE = "war_tie", "Tie in the war (won)"


class RoundDecision(models.TextChoices):
    """The engine's actions on a tie (`casino.engine.Action`)."""

    WAR = "war", "Go to war"
    SURRENDER = "surrender", "Surrender"


class Round(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Indexed by (player, -created_at) below, and by nothing else: every index is written per round.
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="rounds", db_index=False)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rounds")
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=20, choices=RoundStatus.choices)
    # The table's rules when the round was placed: the round plays to them even if the table changes.
    rules = models.JSONField()
    main_bet = models.PositiveBigIntegerField()
    tie_bet = models.PositiveBigIntegerField(default=0)
    raise_bet = models.PositiveBigIntegerField(default=0)
    player_card = models.CharField(max_length=2)
    dealer_card = models.CharField(max_length=2)
    burned = models.CharField(max_length=20, blank=True)
    war_player_card = models.CharField(max_length=2, blank=True)
    war_dealer_card = models.CharField(max_length=2, blank=True)
    decision = models.CharField(max_length=10, blank=True, choices=RoundDecision.choices)
    decided_by_type = models.CharField(max_length=10, blank=True)  # player, partner, system
    decided_by_id = models.CharField(max_length=64, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_deadline = models.DateTimeField(null=True, blank=True)
    decision_timed_out = models.BooleanField(default=False)
    outcome = models.CharField(max_length=10, blank=True, choices=RoundOutcome.choices)
    nets = models.JSONField(default=dict, blank=True)
    net = models.BigIntegerField(null=True, blank=True)
    payout = models.BigIntegerField(null=True, blank=True)
    # Indexed by round_one_per_nonce (seed_pair, nonce).
    seed_pair = models.ForeignKey(SeedPair, on_delete=models.PROTECT, related_name="rounds", db_index=False)
    nonce = models.PositiveBigIntegerField()
    shoe_nonce = models.PositiveBigIntegerField()
    shoe_position = models.PositiveIntegerField(default=0)
    placed_by_type = models.CharField(max_length=10)  # player or partner
    placed_by_id = models.CharField(max_length=64)
    settle_attempts = models.PositiveIntegerField(default=0)
    # A seamless partner's player's round: its stakes came from the partner's wallet (debits), its
    # payout goes back there (a credit), and it is settled once the partner acknowledged the credit.
    seamless = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["seed_pair", "nonce"], name="round_one_per_nonce"),
            models.CheckConstraint(condition=Q(main_bet__gt=0), name="round_main_bet_positive"),
        ]
        indexes = [
            models.Index(fields=["player", "-created_at"]),
            models.Index(fields=["status", "resolved_at"]),
            models.Index(fields=["status", "decision_deadline"]),
        ]

    def __str__(self) -> str:
        return f"round {self.id} ({self.status})"


class WebhookDelivery(models.Model):
    """A `round.settled` event for a partner, POSTed until the partner answers 2xx."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)  # the event id
    partner = models.ForeignKey("accounts.Partner", on_delete=models.PROTECT, related_name="webhook_deliveries")
    round = models.OneToOneField(Round, on_delete=models.PROTECT, related_name="webhook")
    event_type = models.CharField(max_length=32, default="round.settled")
    payload = models.JSONField()
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(db_index=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        # The deliveries still to make, without reading every delivered one: the dispatcher's due
        # deliveries and the dashboard's failing ones.
        indexes = [
            models.Index(fields=["next_attempt_at"], condition=Q(delivered_at__isnull=True), name="webhook_undelivered")
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.id} to {self.partner}"


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    attempted_at = models.DateTimeField(auto_now_add=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["attempted_at"]

    def __str__(self) -> str:
        return f"{self.attempted_at:%H:%M:%S} {self.status_code or self.error}"


class WalletCallKind(models.TextChoices):
    DEBIT = "debit", "debit"
    CREDIT = "credit", "credit"
    ROLLBACK = "rollback", "rollback"


class WalletCallPurpose(models.TextChoices):
    """The `kind` field of a debit's or credit's body (API.md): what the money is for."""

    STAKE = "stake", "stake"
    RAISE = "raise", "raise"
    PAYOUT = "payout", "payout"
    ROLLBACK = "rollback", "rollback"


class WalletCallStatus(models.TextChoices):
    PENDING = "pending", "Pending (not answered yet)"
    ACKNOWLEDGED = "acknowledged", "Acknowledged by the wallet"
    REFUSED = "refused", "Refused for funds"
    FAILED = "failed", "Failed (rolled back)"


class WalletCall(models.Model):
    """A call to a seamless partner's wallet that moves money (API.md "Seamless wallet"): a debit
    made while a request waits for it, a credit or a rollback sent until the partner acknowledges
    it. `transaction_id` is the call's X-Nonce and never changes, so the partner answers a
    repeated call with its first result."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    transaction_id = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=8, choices=WalletCallKind.choices)
    purpose = models.CharField(max_length=8, choices=WalletCallPurpose.choices)
    # A rollback's debit (the body's `reference`).
    reference = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True, related_name="rollback")
    # Found by `walletcall_partner_day` (partner first): an index of the partner alone would be one
    # more written with every call and read by nothing.
    partner = models.ForeignKey(
        "accounts.Partner", on_delete=models.PROTECT, related_name="wallet_calls", db_index=False
    )
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="wallet_calls")
    # Not a foreign key: a stake's debit is made before its round exists (the round takes this id).
    round_id = models.UUIDField(db_index=True)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=12, choices=WalletCallStatus.choices, default=WalletCallStatus.PENDING)
    request_body = models.JSONField()
    attempts = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    last_answer = models.TextField(blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Of the last attempt.")
    # The player's balance at the partner, as its last 200 said.
    partner_balance = models.BigIntegerField(null=True, blank=True)
    # A stake's debit remembers the request that made it: a retry of that request (its
    # Idempotency-Key) uses the same round id and so the same transaction id.
    request_scope = models.CharField(max_length=80, blank=True)
    request_key = models.CharField(max_length=255, blank=True)
    request_hash = models.CharField(max_length=64, blank=True)
    # A debit: until when the request making it holds it. A credit or rollback: its next attempt.
    next_attempt_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["request_scope", "request_key"], condition=~Q(request_key=""), name="walletcall_one_per_request"
            ),
            models.CheckConstraint(condition=Q(amount__gte=0), name="walletcall_amount_not_negative"),
        ]
        indexes = [
            models.Index(fields=["next_attempt_at"], condition=Q(status="pending"), name="walletcall_pending"),
            models.Index(fields=["partner", "created_at"], name="walletcall_partner_day"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.transaction_id} ({self.status})"


class WalletCallAttempt(models.Model):
    call = models.ForeignKey(WalletCall, on_delete=models.CASCADE, related_name="attempt_log")
    attempted_at = models.DateTimeField(auto_now_add=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    answer = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["attempted_at"]

    def __str__(self) -> str:
        return f"{self.attempted_at:%H:%M:%S} {self.status_code or self.error}"


class MatchStatus(models.TextChoices):
    AWAITING_DECISION = "awaiting_decision", "Awaiting a person's decision"
    FINISHED = "finished", "Finished"


class Match(models.Model):
    """A War game (any preset of RULES.md section 5) played for fun from a provably fair seed.

    Nothing is stored but what replays it: the seeds, the rules asked for and a person's decisions in
    Steal War. The game itself is replayed by the engine on every read."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(
        "accounts.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    preset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    server_seed = models.CharField(max_length=64)
    server_seed_hash = models.CharField(max_length=64)
    client_seed = models.CharField(max_length=64, blank=True)
    human_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    steals = models.JSONField(default=list, blank=True)  # the person's steal decisions, in order
    tops = models.JSONField(default=list, blank=True)  # the person's top-card decisions, in order
    status = models.CharField(max_length=20, choices=MatchStatus.choices)
    created_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["player", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.preset} match {self.id}"


class RoundHour(models.Model):
    """An hour (UTC) whose rounds are summed up in `RoundHourTotal` rows. Written once, after the hour
    is over: a round counts in the hour its outcome became known (`resolved_at`, which never changes)."""

    hour = models.DateTimeField(primary_key=True)
    summed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"rounds of the hour from {moment_text(self.hour)} summed at {moment_text(self.summed_at)}"


class RoundHourTotal(models.Model):
    """The rounds resolved in one UTC hour, summed per table, partner, currency and the rules that
    set the odds: what the dashboard and the reports read for finished hours instead of the rounds
    themselves (casino/reports.py computes them from the rounds' index once the hour is over).

    A round's return per unit of its main bet is r = 1 + (nets of main, raise and bonus) / main (a
    lost war gives -1); the sums of r and r² give the observed RTP and its interval, as the odds
    module counts RTP. Likewise for the tie bet, per unit of the tie bet."""

    hour = models.DateTimeField()
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    partner = models.ForeignKey("accounts.Partner", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    currency = models.CharField(max_length=3)
    decks = models.PositiveSmallIntegerField()
    tie_pays = models.PositiveSmallIntegerField()
    tie_after_tie_bonus = models.BooleanField()
    rounds = models.PositiveBigIntegerField()
    staked = models.BigIntegerField(help_text="Main, raise and tie bets (minor units)")
    paid = models.BigIntegerField(help_text="Paid back to the players' wallets (minor units)")
    main_staked = models.BigIntegerField(help_text="Main bets and raises (minor units)")
    main_return_sum = models.FloatField()
    main_return_squares = models.FloatField()
    tie_rounds = models.PositiveBigIntegerField()
    tie_staked = models.BigIntegerField()
    tie_return_sum = models.FloatField()
    tie_return_squares = models.FloatField()

    class Meta:
        constraints = [
            # An hour's totals are written once: a concurrent summing of the same hour inserts nothing.
            models.UniqueConstraint(
                fields=["hour", "table", "partner", "currency", "decks", "tie_pays", "tie_after_tie_bonus"],
                nulls_distinct=False,
                name="roundhourtotal_one_per_group",
            )
        ]
        # Revenue (stakes, GGR, return to player) is the operator's and the auditor's, not support's.
        permissions = [("view_revenue", "Can see stakes, revenue (GGR) and return to player")]

    def __str__(self) -> str:
        return f"hour from {moment_text(self.hour)}, table {self.table_id} {self.currency}: {self.rounds} rounds"
