"""Each statement of casino/sql/, on real PostgreSQL: what it reads, what it writes, what it refuses."""

import threading
import time
import uuid
from datetime import timedelta

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from accounts.services import partner_create
from casino import sql
from casino.models import Round, RoundStatus, WalletCall, WalletCallAttempt
from casino.services.fairness import seed_pair_active
from core import sql as core_sql
from core.idempotency import idempotency_lock_id
from core.models import AuditEvent, IdempotencyRecord
from ledger import sql as ledger_sql
from ledger.models import Account, AccountKind, JournalEntry
from ledger.services import player_accounts_open
from protection.models import Exclusion, PlayerLimit
from tests.databases import other_connection
from tests.factories import TableFactory, make_player

pytestmark = pytest.mark.django_db
KINDS = ["wager", "loss"]


def _open(player, table, at=None):
    return sql.round_open(
        player_id=player.pk, currency=player.currency, table_id=table.pk, guard_kinds=KINDS, at=at or timezone.now()
    )


def _round(player, table, pair, **fields):
    now = timezone.now()
    values = dict(
        id=uuid.uuid4(),
        player=player,
        table=table,
        currency="EUR",
        status=RoundStatus.RESOLVED,
        rules={"decks": 6},
        main_bet=100,
        tie_bet=0,
        player_card="KH",
        dealer_card="2C",
        seed_pair=pair,
        nonce=pair.next_nonce,
        shoe_nonce=pair.next_nonce,
        placed_by_type="player",
        placed_by_id=str(player.pk),
        created_at=now,
        resolved_at=now,
        outcome="win",
        nets={"main": 100},
        net=100,
        payout=200,
    )
    values.update(fields)
    return Round(**values)


def _place(player, table, round_, stake=100):
    wallet, in_play = player_accounts_open(player=player)
    sql.round_place(
        round_=round_,
        audit={"nonce": round_.nonce},
        stake_key=f"round:{round_.id}:stake",
        stake_reason="main bet",
        wallet_id=wallet.pk,
        in_play_id=in_play.pk,
        stake=stake,
    )


def test_round_open_reads_the_pair_table_guards_and_accounts():
    player, table = make_player(balance=1_000), TableFactory()
    pair = seed_pair_active(player=player)
    wallet, in_play = player_accounts_open(player=player)
    now = timezone.now()
    PlayerLimit.objects.create(
        player=player,
        kind="wager",
        period="day",
        amount=500,
        requested_at=now,
        effective_from=now,
        requested_by_type="player",
        requested_by_id="1",
    )
    opened_pair, opened_table, excluded, limits, wallet_id, in_play_id = _open(player, table)
    assert (opened_pair.pk, opened_pair.next_nonce, opened_pair.server_seed) == (pair.pk, 0, pair.server_seed)
    assert (opened_table.pk, opened_table.min_bet, opened_table.rules) == (table.pk, table.min_bet, table.rules)
    assert (excluded, limits, wallet_id, in_play_id) == (False, [["wager", "day", 500]], wallet.pk, in_play.pk)
    Exclusion.objects.create(
        player=player,
        kind="timeout",
        starts_at=now - timedelta(minutes=1),
        ends_at=now + timedelta(days=1),
        requested_by_type="player",
        requested_by_id="1",
    )
    assert _open(player, table)[2] is True


def test_round_open_finds_nothing_without_an_active_pair_or_the_table():
    player, table = make_player(), TableFactory()
    assert _open(player, table) is None  # no seed pair yet
    seed_pair_active(player=player)
    assert (
        sql.round_open(player_id=player.pk, currency="EUR", table_id=10**9, guard_kinds=KINDS, at=timezone.now())
        is None
    )


@pytest.mark.django_db(transaction=True)
def test_round_open_holds_the_pairs_row_lock_until_the_end_of_the_transaction():
    player, table = make_player(), TableFactory()
    pair = seed_pair_active(player=player)
    with transaction.atomic():
        _open(player, table)
        with other_connection() as other, pytest.raises(psycopg.errors.LockNotAvailable):
            other.execute("SELECT 1 FROM casino_seedpair WHERE id = %s FOR UPDATE NOWAIT", [pair.pk])
    with other_connection() as other:
        assert other.execute("SELECT 1 FROM casino_seedpair WHERE id = %s FOR UPDATE NOWAIT", [pair.pk]).fetchone()


@pytest.mark.django_db(transaction=True)
def test_round_open_unlocked_reads_the_same_and_leaves_the_pair_alone():
    """A round whose statements each commit alone reads the pair without its row lock (its write
    finds whether the nonce is still the pair's next): the same reading, no lock, and no wait for a
    pair another transaction holds."""
    player, table = make_player(), TableFactory()
    pair = seed_pair_active(player=player)
    locked = _open(player, table)
    with other_connection(autocommit=False) as holder:
        holder.execute("SELECT 1 FROM casino_seedpair WHERE id = %s FOR UPDATE", [pair.pk])
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '2s'")  # a read that waited for the pair fails here
            unlocked = sql.round_open(
                player_id=player.pk,
                currency=player.currency,
                table_id=table.pk,
                guard_kinds=KINDS,
                at=timezone.now(),
                locked=False,
            )
        holder.rollback()
    assert unlocked.pair.pk == pair.pk and unlocked.pair.next_nonce == locked.pair.next_nonce
    assert (unlocked.table.pk, unlocked.wallet_id, unlocked.in_play_id) == (
        locked.table.pk,
        locked.wallet_id,
        locked.in_play_id,
    )


def test_round_place_counts_the_nonce_writes_the_round_its_audit_event_and_stakes():
    player, table = make_player(balance=1_000), TableFactory()
    pair = seed_pair_active(player=player)
    round_ = _round(
        player,
        table,
        pair,
        status=RoundStatus.AWAITING_DECISION,
        nets={"main": 0},
        net=None,
        payout=None,
        outcome="",
        resolved_at=None,
    )
    _place(player, table, round_, stake=300)
    stored = Round.objects.get(pk=round_.id)
    assert (stored.status, stored.nets, stored.nonce, stored.player_card) == ("awaiting_decision", {"main": 0}, 0, "KH")
    pair.refresh_from_db()
    assert pair.next_nonce == 1
    event = AuditEvent.objects.get(object_id=str(round_.id))
    assert (event.action, event.actor_type, event.data) == ("round.placed", "player", {"nonce": 0})
    kinds = (AccountKind.PLAYER_WALLET, AccountKind.PLAYER_IN_PLAY)
    wallet, in_play = (Account.objects.get(player=player, kind=kind) for kind in kinds)
    assert (wallet.balance, in_play.balance) == (700, 300)
    assert JournalEntry.objects.get(idempotency_key=f"round:{round_.id}:stake").kind == "stake"


@pytest.mark.parametrize("refusal", ["funds", "nonce"])
def test_round_place_refuses_and_writes_nothing(refusal):
    player, table = make_player(balance=100), TableFactory()
    pair = seed_pair_active(player=player)
    round_ = _round(player, table, pair, nonce=5 if refusal == "nonce" else 0)
    entries, events = JournalEntry.objects.count(), AuditEvent.objects.count()
    with pytest.raises(DatabaseError) as refused, transaction.atomic():
        _place(player, table, round_, stake=101 if refusal == "funds" else 100)
    expected = ledger_sql.INSUFFICIENT_FUNDS if refusal == "funds" else sql.NONCE_TAKEN
    assert refused.value.__cause__.sqlstate == expected
    assert not Round.objects.filter(pk=round_.id).exists()
    assert (JournalEntry.objects.count(), AuditEvent.objects.count()) == (entries, events)
    pair.refresh_from_db()
    assert pair.next_nonce == 0


def _claim(key="k1", scope="player:1"):
    return core_sql.idempotency_claim_params(lock_id=idempotency_lock_id(scope, key), scope=scope, key=key)


def _open_claiming(player, table, claim):
    return sql.round_open_claiming(
        claim=claim,
        player_id=player.pk,
        currency=player.currency,
        table_id=table.pk,
        guard_kinds=KINDS,
        at=timezone.now(),
    )


@pytest.mark.django_db(transaction=True)
def test_round_open_claiming_takes_the_key_and_opens_the_round_in_one_statement():
    player, table = make_player(balance=1_000), TableFactory()
    pair = seed_pair_active(player=player)
    with transaction.atomic():
        claim, opened = _open_claiming(player, table, _claim())
        assert core_sql.idempotency_claimed(claim) == core_sql.Claim(True, None)
        assert (opened[0].pk, opened[1].pk) == (pair.pk, table.pk)
        with other_connection() as other:  # both locks are held until the end of the transaction
            assert other.execute("SELECT pg_try_advisory_lock(%s)", [_claim()[0]]).fetchone() == (False,)
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute("SELECT 1 FROM casino_seedpair WHERE id = %s FOR UPDATE NOWAIT", [pair.pk])


@pytest.mark.django_db(transaction=True)
def test_round_open_claiming_leaves_the_pair_alone_for_a_stored_response_or_a_held_key():
    player, table = make_player(balance=1_000), TableFactory()
    pair = seed_pair_active(player=player)
    core_sql.idempotency_store(
        scope="player:1", key="done", request_hash="h", answer=core_sql.StoredAnswer(201, '{"id":"r"}', {})
    )
    with other_connection() as holder:
        holder.execute("SELECT 1 FROM casino_seedpair WHERE id = %s FOR UPDATE", [pair.pk])  # autocommit: let go
        holder.execute("BEGIN")
        holder.execute("SELECT 1 FROM casino_seedpair WHERE id = %s FOR UPDATE", [pair.pk])  # a round in flight
        holder.execute("SELECT pg_advisory_xact_lock(%s)", [_claim("busy")[0]])
        with transaction.atomic(), connection.cursor() as cursor:  # neither waits for the pair held there
            cursor.execute("SET LOCAL lock_timeout = '2s'")
            claim, opened = _open_claiming(player, table, _claim("done"))
            free, stored, _taken = core_sql.idempotency_claimed(claim)
            assert free and (stored[0], stored[1].status) == ("h", 201) and opened is None
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '2s'")
            claim, opened = _open_claiming(player, table, _claim("busy"))
            assert core_sql.idempotency_claimed(claim) == core_sql.Claim(False, None) and opened is None
        holder.execute("ROLLBACK")


def test_round_place_storing_writes_the_round_and_the_response_in_one_statement():
    player, table = make_player(balance=1_000), TableFactory()
    pair = seed_pair_active(player=player)
    round_ = _round(player, table, pair)
    wallet, in_play = player_accounts_open(player=player)
    answer = core_sql.StoredAnswer(201, f'{{"id":"{round_.id}"}}', {"Content-Type": "application/json"})
    store = core_sql.idempotency_store_params(scope="player:1", key="k", request_hash="h", answer=answer)
    place = dict(
        audit={},
        stake_key=f"round:{round_.id}:stake",
        stake_reason="main bet",
        wallet_id=wallet.pk,
        in_play_id=in_play.pk,
        stake=100,
    )
    assert sql.round_place(round_=round_, store=store, **place) is True
    assert Round.objects.filter(pk=round_.id).exists()
    assert IdempotencyRecord.objects.get(scope="player:1", key="k").response_text == answer.text
    again = _round(player, table, pair, nonce=1)  # a response is stored for the key already
    assert sql.round_place(round_=again, store=store, **{**place, "stake_key": f"round:{again.id}:stake"}) is False


def test_round_decide_writes_the_result_and_stakes_the_raise_once():
    player, table = make_player(balance=1_000), TableFactory()
    pair = seed_pair_active(player=player)
    waiting = _round(
        player, table, pair, status=RoundStatus.AWAITING_DECISION, outcome="", resolved_at=None, net=None, payout=None
    )
    _place(player, table, waiting)
    wallet, in_play = player_accounts_open(player=player)
    decided = _round(
        player,
        table,
        pair,
        id=waiting.id,
        decision="war",
        raise_bet=100,
        outcome="war_win",
        net=100,
        payout=400,
        burned="2H 3H 4H",
        war_player_card="AS",
        war_dealer_card="3D",
        decided_by_type="player",
        decided_by_id=str(player.pk),
        decided_at=timezone.now(),
    )
    sql.round_decide(
        round_=decided,
        audit={"decision": "war"},
        raise_key=f"round:{waiting.id}:raise",
        wallet_id=wallet.pk,
        in_play_id=in_play.pk,
    )
    stored = Round.objects.get(pk=waiting.id)
    assert (stored.status, stored.decision, stored.raise_bet, stored.war_player_card, stored.payout) == (
        "resolved",
        "war",
        100,
        "AS",
        400,
    )
    in_play.refresh_from_db()
    assert in_play.balance == 200
    assert AuditEvent.objects.filter(object_id=str(waiting.id), action="round.decided").count() == 1
    with pytest.raises(DatabaseError) as refused, transaction.atomic():  # it no longer awaits a decision
        sql.round_decide(round_=decided, audit={}, raise_key=None, wallet_id=wallet.pk, in_play_id=in_play.pk)
    assert refused.value.__cause__.sqlstate == sql.NOT_AWAITING_DECISION


def test_round_decide_refused_for_the_raise_leaves_the_round_waiting():
    player, table = make_player(balance=100), TableFactory()
    pair = seed_pair_active(player=player)
    waiting = _round(
        player, table, pair, status=RoundStatus.AWAITING_DECISION, outcome="", resolved_at=None, net=None, payout=None
    )
    _place(player, table, waiting)
    wallet, in_play = player_accounts_open(player=player)
    decided = _round(
        player, table, pair, id=waiting.id, decision="war", raise_bet=100, decided_by_type="player", decided_by_id="1"
    )
    with pytest.raises(DatabaseError) as refused, transaction.atomic():
        sql.round_decide(
            round_=decided, audit={}, raise_key=f"round:{waiting.id}:raise", wallet_id=wallet.pk, in_play_id=in_play.pk
        )
    assert refused.value.__cause__.sqlstate == ledger_sql.INSUFFICIENT_FUNDS
    assert Round.objects.get(pk=waiting.id).status == "awaiting_decision"
    assert not AuditEvent.objects.filter(object_id=str(waiting.id), action="round.decided").exists()


def _placed(player, table, **fields):
    pair = seed_pair_active(player=player)
    pair.refresh_from_db()
    round_ = _round(player, table, pair, **fields)
    _place(player, table, round_, stake=round_.main_bet)
    return round_


def test_rounds_settle_pays_each_round_once_and_names_the_partners_that_take_webhooks(fake_dns):
    fake_dns["partner.example"] = "93.184.216.34"  # a public address
    table = TableFactory()
    partner, _ = partner_create(name="Hooked", webhook_url="https://partner.example/hooks")
    quiet, partnered = make_player(balance=1_000), make_player(balance=1_000, partner=partner, external_id="p1")
    won = _placed(quiet, table, payout=200)
    lost = _placed(partnered, table, outcome="lose", net=-100, payout=0)
    later = timezone.now() + timedelta(seconds=1)
    assert sorted(sql.rounds_settle(ids=None, resolved_before=later, limit=10).rounds, key=lambda r: r[1] or 0) == [
        (won.id, None),
        (lost.id, partner.pk),
    ]
    assert set(Round.objects.values_list("status", flat=True)) == {"settled"}
    wallet = Account.objects.get(player=quiet, kind=AccountKind.PLAYER_WALLET)
    assert wallet.balance == 1_100  # 1,000 - 100 staked + 200 paid
    house = Account.objects.filter(kind=AccountKind.HOUSE, currency="EUR")
    assert sum(house.values_list("balance", flat=True)) == 0  # -100 paid out to one, +100 kept from the other
    assert not Account.objects.filter(kind=AccountKind.PLAYER_IN_PLAY).exclude(balance=0).exists()
    assert sql.rounds_settle(ids=None, resolved_before=later, limit=10) == ([], [])
    assert sql.rounds_settle(ids=[won.id], resolved_before=later, limit=1) == ([], [])
    assert JournalEntry.objects.filter(idempotency_key__endswith=":settle").count() == 2


def test_rounds_settle_posts_each_round_of_a_batch_as_its_own_entry():
    player, table = make_player(balance=1_000), TableFactory()
    now = timezone.now()
    won, lost, pushed = (
        _placed(player, table, resolved_at=now - timedelta(seconds=3), payout=200),
        _placed(player, table, resolved_at=now - timedelta(seconds=2), outcome="lose", net=-100, payout=0),
        _placed(player, table, resolved_at=now - timedelta(seconds=1), outcome="tie", net=0, payout=100),
    )
    assert len(sql.rounds_settle(ids=None, resolved_before=now, limit=10).rounds) == 3
    wallet = Account.objects.get(player=player, kind=AccountKind.PLAYER_WALLET)
    # One entry per round, in the order the batch posted them (its statement does not promise one).
    entries = list(JournalEntry.objects.filter(idempotency_key__endswith=":settle").order_by("id"))
    rounds = {str(r.id): r for r in (won, lost, pushed)}
    assert sorted(e.reference_id for e in entries) == sorted(rounds)
    assert [(e.idempotency_key, e.kind, e.reference_type) for e in entries] == [
        (f"round:{e.reference_id}:settle", "settlement", "round") for e in entries
    ]
    by_round = {e.reference_id: e for e in entries}
    assert by_round[str(won.id)].reason == "win: payout 200 of 100 staked"
    lines = {
        e.reference_id: [
            (p.account.kind, p.direction, p.amount) for p in e.postings.order_by("id").select_related("account")
        ]
        for e in entries
    }
    assert lines == {
        str(won.id): [("player_in_play", "D", 100), ("player_wallet", "C", 200), ("house", "D", 100)],
        str(lost.id): [("player_in_play", "D", 100), ("house", "C", 100)],
        str(pushed.id): [("player_in_play", "D", 100), ("player_wallet", "C", 100)],
    }
    # The wallet's balance after each posting runs through the batch, from 700 after the three stakes.
    payouts = {str(won.id): 200, str(lost.id): 0, str(pushed.id): 100}
    running, expected = 700, []
    for entry in entries:
        if payouts[entry.reference_id]:
            running += payouts[entry.reference_id]
            expected.append(running)
    assert list(wallet.postings.filter(entry__in=entries).order_by("id").values_list("balance_after", flat=True)) == (
        expected
    )
    assert expected[-1] == 1_000
    wallet.refresh_from_db()
    assert wallet.balance == 1_000


def test_rounds_settle_refuses_a_batch_whose_settlement_key_holds_other_content():
    player, table = make_player(balance=1_000), TableFactory()
    first, second = _placed(player, table), _placed(player, table)
    wallet, in_play = player_accounts_open(player=player)
    ledger_sql.post_entry(
        idempotency_key=f"round:{second.id}:settle",
        kind="settlement",
        reason="elsewhere",
        actor_type="system",
        actor_id="tests",
        reference_type="round",
        reference_id=str(second.id),
        reverses_id=None,
        account_ids=[in_play.pk, wallet.pk],
        amounts=[-1, 1],
        currencies=["EUR", "EUR"],
    )
    with pytest.raises(DatabaseError) as refused, transaction.atomic():
        sql.rounds_settle(ids=None, resolved_before=timezone.now() + timedelta(seconds=1), limit=10)
    assert refused.value.__cause__.sqlstate == "CSN03"
    assert set(Round.objects.values_list("status", flat=True)) == {"resolved"}
    assert not JournalEntry.objects.filter(idempotency_key=f"round:{first.id}:settle").exists()


def test_rounds_settle_takes_the_oldest_first_and_at_most_its_limit():
    player, table = make_player(balance=1_000), TableFactory()
    now = timezone.now()
    rounds = [_placed(player, table, resolved_at=now - timedelta(seconds=10 - n)) for n in range(3)]
    settled = sql.rounds_settle(ids=None, resolved_before=now, limit=2)
    assert {round_id for round_id, _ in settled.rounds} == {rounds[0].id, rounds[1].id}
    assert sql.rounds_settle(ids=None, resolved_before=now - timedelta(seconds=20), limit=10) == ([], [])


@pytest.mark.django_db(transaction=True)
def test_rounds_settle_leaves_a_round_another_transaction_holds():
    player, table = make_player(balance=1_000), TableFactory()
    held, free = _placed(player, table), _placed(player, table)
    with other_connection() as other:
        other.execute("BEGIN")
        other.execute("SELECT 1 FROM casino_round WHERE id = %s FOR UPDATE", [held.id])
        settled = sql.rounds_settle(ids=[held.id, free.id], resolved_before=timezone.now(), limit=10)
        other.execute("ROLLBACK")
    assert settled == ([(free.id, None)], [])
    assert Round.objects.get(pk=held.id).status == "resolved"


@pytest.mark.django_db(transaction=True)
def test_rounds_settle_locks_the_accounts_last_and_waits_for_a_round_being_placed():
    busy_player, free_player, table = make_player(balance=1_000), make_player(balance=1_000), TableFactory()
    busy, free = _placed(busy_player, table), _placed(free_player, table)
    _, in_play = player_accounts_open(player=busy_player)  # (a lost round pays nothing into the wallet)
    settled = []

    def settle():
        try:
            with transaction.atomic():
                settled.append(sql.rounds_settle(ids=None, resolved_before=timezone.now(), limit=10))
        finally:
            connection.close()

    with other_connection() as other:
        other.execute("BEGIN")
        other.execute("SELECT 1 FROM ledger_account WHERE id = %s FOR NO KEY UPDATE", [in_play.pk])  # a round placed
        settling = threading.Thread(target=settle)
        settling.start()
        waiting = _backend_waiting_for_a_lock(other, "casino_rounds_settle")
        # Everything but the posting is written while it waits: the rounds marked (the UPDATE's
        # lock on the table), and no round was left out for the busy player.
        held = other.execute(
            "SELECT mode FROM pg_locks WHERE pid = %s AND relation = 'casino_round'::regclass", [waiting]
        ).fetchall()
        assert ("RowExclusiveLock",) in held
        other.execute("ROLLBACK")
    settling.join(timeout=10)
    assert sorted(settled[0].rounds) == sorted([(busy.id, None), (free.id, None)])
    assert set(Round.objects.values_list("status", flat=True)) == {"settled"}


def _backend_waiting_for_a_lock(other, statement: str) -> int:
    """The backend whose statement `statement` waits for a lock, once it does (within 10 s)."""
    for _ in range(1000):
        other.execute("SELECT pg_stat_clear_snapshot()")  # (a transaction reads the activity once, else)
        row = other.execute(
            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE %s",
            [f"%{statement}%"],
        ).fetchone()
        if row is not None:
            return row[0]
        time.sleep(0.01)
    raise AssertionError(f"no {statement} waited for a lock")


@pytest.mark.django_db(transaction=True)
def test_one_batch_settles_at_a_time_and_another_leaves_at_once():
    player, table = make_player(balance=1_000), TableFactory()
    round_ = _placed(player, table)
    with other_connection() as other:
        other.execute("BEGIN")
        other.execute("SELECT pg_advisory_xact_lock(7461002)")  # a batch running
        assert sql.rounds_settle(ids=None, resolved_before=timezone.now(), limit=10) == ([], [])
        other.execute("ROLLBACK")
    assert sql.rounds_settle(ids=None, resolved_before=timezone.now(), limit=10) == ([(round_.id, None)], [])


def test_round_for_decision_reads_the_round_its_pair_player_and_accounts():
    player, other, table = make_player(balance=1_000), make_player(), TableFactory()
    waiting = _placed(
        player, table, status=RoundStatus.AWAITING_DECISION, outcome="", resolved_at=None, net=None, payout=None
    )
    wallet, in_play = player_accounts_open(player=player)
    round_, wallet_id, in_play_id = sql.round_for_decision(round_id=waiting.id, player_id=player.pk)
    assert (round_.id, round_.status, round_.seed_pair.server_seed, round_.player.pk) == (
        waiting.id,
        "awaiting_decision",
        waiting.seed_pair.server_seed,
        player.pk,
    )
    assert (wallet_id, in_play_id) == (wallet.pk, in_play.pk)
    assert sql.round_for_decision(round_id=waiting.id, player_id=other.pk) is None  # another player's round
    assert sql.round_for_decision(round_id=waiting.id, status="resolved") is None
    assert sql.round_for_decision(round_id=uuid.uuid4()) is None


@pytest.mark.django_db(transaction=True)
def test_round_for_decision_can_leave_a_round_another_transaction_holds():
    player, table = make_player(balance=1_000), TableFactory()
    waiting = _placed(
        player, table, status=RoundStatus.AWAITING_DECISION, outcome="", resolved_at=None, net=None, payout=None
    )
    with other_connection() as other:
        other.execute("BEGIN")
        other.execute("SELECT 1 FROM casino_round WHERE id = %s FOR UPDATE", [waiting.id])
        with transaction.atomic():
            assert sql.round_for_decision(round_id=waiting.id, skip_locked=True) is None
        other.execute("ROLLBACK")
    with transaction.atomic():
        assert sql.round_for_decision(round_id=waiting.id, skip_locked=True) is not None


def _waiting(player, table, **fields):
    return _placed(
        player,
        table,
        status=RoundStatus.AWAITING_DECISION,
        outcome="",
        resolved_at=None,
        net=None,
        payout=None,
        decision_deadline=timezone.now(),
        **fields,
    )


@pytest.mark.django_db(transaction=True)
def test_rounds_for_decision_reads_several_in_deadline_order_and_leaves_those_held():
    table = TableFactory()
    late, early, held = (_waiting(make_player(balance=1_000), table) for _ in range(3))
    Round.objects.filter(pk=early.pk).update(decision_deadline=timezone.now() - timedelta(seconds=5))
    resolved = _placed(make_player(balance=1_000), table)
    with other_connection() as other:
        other.execute("BEGIN")
        other.execute("SELECT 1 FROM casino_round WHERE id = %s FOR UPDATE", [held.id])
        with transaction.atomic():
            found = sql.rounds_for_decision(
                round_ids=[late.id, early.id, held.id, resolved.id], status=RoundStatus.AWAITING_DECISION
            )
        other.execute("ROLLBACK")
    assert [round_.id for round_, _, _ in found] == [early.id, late.id]
    wallet, in_play = player_accounts_open(player=early.player)
    assert (found[0][0].seed_pair.server_seed, found[0][1:]) == (early.seed_pair.server_seed, (wallet.pk, in_play.pk))


def _decision(round_, *, raise_bet):
    wallet, in_play = player_accounts_open(player=round_.player)
    round_.status, round_.outcome, round_.raise_bet = RoundStatus.RESOLVED, "win", raise_bet
    round_.decision, round_.resolved_at, round_.net, round_.payout = "war", timezone.now(), 100, 300
    return sql.Decision(
        round_=round_,
        audit={"decision": "war"},
        raise_key=f"round:{round_.id}:raise" if raise_bet else None,
        wallet_id=wallet.pk,
        in_play_id=in_play.pk,
    )


def test_rounds_decide_writes_every_round_its_audit_event_and_raise_at_once():
    table = TableFactory()
    first, second = _waiting(make_player(balance=1_000), table), _waiting(make_player(balance=1_000), table)
    sql.rounds_decide(decisions=[_decision(first, raise_bet=100), _decision(second, raise_bet=0)])
    assert set(Round.objects.values_list("status", "decision", "raise_bet")) == {
        ("resolved", "war", 100),
        ("resolved", "war", 0),
    }
    assert AuditEvent.objects.filter(action="round.decided").count() == 2
    assert list(
        JournalEntry.objects.filter(idempotency_key__endswith=":raise").values_list("reference_id", flat=True)
    ) == [str(first.id)]
    assert Account.objects.get(player=first.player, kind=AccountKind.PLAYER_WALLET).balance == 1_000 - 100 - 100


@pytest.mark.parametrize("refusal", ["decided meanwhile", "raise unpaid"])
def test_rounds_decide_refuses_the_whole_batch_and_writes_nothing(refusal):
    table = TableFactory()
    first, second = _waiting(make_player(balance=1_000), table), _waiting(make_player(balance=100), table)
    decisions = [
        _decision(first, raise_bet=100),
        _decision(second, raise_bet=100 if refusal == "decided meanwhile" else 1_000),
    ]
    if refusal == "decided meanwhile":
        Round.objects.filter(pk=second.pk).update(status=RoundStatus.RESOLVED)
    with pytest.raises(DatabaseError) as refused, transaction.atomic():
        sql.rounds_decide(decisions=decisions)
    sqlstate = sql.NOT_AWAITING_DECISION if refusal == "decided meanwhile" else ledger_sql.INSUFFICIENT_FUNDS
    assert refused.value.__cause__.sqlstate == sqlstate
    assert Round.objects.get(pk=first.pk).status == RoundStatus.AWAITING_DECISION
    assert not AuditEvent.objects.filter(action="round.decided").exists()
    assert not JournalEntry.objects.filter(idempotency_key__endswith=":raise").exists()


def _seamless_partner(fake_dns, *, webhook_url=""):
    fake_dns["wallet.example"] = "93.184.216.34"
    fake_dns["partner.example"] = "93.184.216.34"
    partner, _ = partner_create(name="Seamless", wallet_url="https://wallet.example/w", webhook_url=webhook_url)
    return partner


def _call(partner, player, n, *, kind="credit", round_id=None, **fields) -> WalletCall:
    values = dict(
        transaction_id=f"t{n}-{kind}",
        kind=kind,
        purpose="payout" if kind == "credit" else kind,
        partner=partner,
        player=player,
        round_id=round_id or uuid.uuid4(),
        amount=n,
        currency="EUR",
        request_body={"n": n},
        next_attempt_at=timezone.now(),
    )
    values.update(fields)
    return WalletCall.objects.create(**values)


def test_credits_claim_leases_the_due_credits_oldest_first_and_reads_what_sending_needs(fake_dns):
    partner = _seamless_partner(fake_dns)
    player = make_player(partner=partner, external_id="p-1")
    now = timezone.now()
    older = _call(partner, player, 1, next_attempt_at=now - timedelta(seconds=9))
    newer = _call(partner, player, 2, next_attempt_at=now - timedelta(seconds=5))
    oldest_of_all = _call(partner, player, 3, next_attempt_at=now - timedelta(seconds=20), attempts=4)
    later = _call(partner, player, 4, next_attempt_at=now + timedelta(seconds=60))
    _call(partner, player, 5, status="acknowledged", next_attempt_at=now - timedelta(seconds=30))
    _call(partner, player, 6, kind="rollback", next_attempt_at=now - timedelta(seconds=30))
    _call(partner, player, 7, kind="debit", next_attempt_at=now - timedelta(seconds=30))
    leased_until = now + timedelta(seconds=30)
    claimed = sql.credits_claim(due_by=now, leased_until=leased_until, limit=2)
    assert sorted(claimed) == sorted(
        [
            sql.ClaimedCall(oldest_of_all.pk, "credit", "t3-credit", {"n": 3}, 4, partner.wallet_url, partner.secret),
            sql.ClaimedCall(older.pk, "credit", "t1-credit", {"n": 1}, 0, partner.wallet_url, partner.secret),
        ]
    )
    leases = dict(WalletCall.objects.values_list("pk", "next_attempt_at"))
    assert leases[oldest_of_all.pk] == leases[older.pk] == leased_until
    assert leases[newer.pk] == now - timedelta(seconds=5) and leases[later.pk] == now + timedelta(seconds=60)
    assert [c.id for c in sql.credits_claim(due_by=now, leased_until=leased_until, limit=10)] == [newer.pk]
    assert sql.credits_claim(due_by=now, leased_until=leased_until, limit=10) == []


@pytest.mark.django_db(transaction=True)
def test_credits_claim_leaves_a_credit_another_transaction_holds(fake_dns):
    partner = _seamless_partner(fake_dns)
    player = make_player(partner=partner, external_id="p-1")
    held, free = _call(partner, player, 1), _call(partner, player, 2)
    with other_connection() as other:
        other.execute("BEGIN")
        other.execute("SELECT 1 FROM casino_walletcall WHERE id = %s FOR UPDATE", [held.pk])
        claimed = sql.credits_claim(due_by=timezone.now(), leased_until=timezone.now(), limit=10)
        other.execute("ROLLBACK")
    assert [c.id for c in claimed] == [free.pk]


def _answer(call, *, ok=True, status_code=200, balance=5, next_attempt_at=None):
    return sql.CallAnswer(
        call_id=call.pk,
        status_code=status_code,
        error="" if ok else f"HTTP {status_code}",
        answer=f'{{"balance": {balance}}}' if ok else "oops",
        duration_ms=call.amount * 10,  # each call's own
        balance=balance if ok else None,
        acknowledged=ok,
        next_attempt_at=next_attempt_at or timezone.now(),
    )


def test_credits_record_writes_each_answer_and_settles_the_acknowledged_credits_rounds(fake_dns):
    partner = _seamless_partner(fake_dns, webhook_url="https://partner.example/hooks")
    player, table = make_player(balance=1_000, partner=partner, external_id="p-1"), TableFactory()
    won, lost = _placed(player, table, payout=200), _placed(player, table, outcome="lose", net=-100, payout=0)
    settled_before = _placed(player, table, status="settled")
    credited = _call(partner, player, 1, round_id=won.id, amount=200)
    failed = _call(partner, player, 2, round_id=lost.id, amount=0, attempts=2, partner_balance=9)
    done = _call(partner, player, 3, status="acknowledged", attempts=1)
    rollback = _call(partner, player, 4, kind="rollback", round_id=lost.id)
    again = _call(partner, player, 5, round_id=settled_before.id)
    untouched = _call(partner, player, 6)
    retry_at = timezone.now() + timedelta(seconds=8)
    answers = [
        _answer(credited, balance=700),
        _answer(failed, ok=False, status_code=500, next_attempt_at=retry_at),
        _answer(done),
        _answer(rollback, balance=800),
        _answer(again),
    ]
    recorded = {r.call_id: r for r in sql.credits_record(answers=answers)}
    assert recorded == {
        credited.pk: (credited.pk, True, "acknowledged", won.id, partner.pk),
        failed.pk: (failed.pk, True, "pending", None, None),
        done.pk: (done.pk, False, "acknowledged", None, None),
        rollback.pk: (rollback.pk, True, "acknowledged", None, None),
        again.pk: (again.pk, True, "acknowledged", None, None),  # its round was settled already
    }
    calls = {c.pk: c for c in WalletCall.objects.all()}
    fields = ("attempts", "last_status_code", "last_error", "last_answer", "latency_ms", "partner_balance", "status")
    assert [getattr(calls[credited.pk], f) for f in fields] == [
        1,
        200,
        "",
        '{"balance": 700}',
        2000,
        700,
        "acknowledged",
    ]
    assert [getattr(calls[failed.pk], f) for f in fields] == [3, 500, "HTTP 500", "oops", 0, 9, "pending"]
    assert calls[failed.pk].next_attempt_at == retry_at and calls[failed.pk].answered_at is None
    assert calls[credited.pk].next_attempt_at == credited.next_attempt_at and calls[credited.pk].answered_at
    for call in (done, untouched):
        assert [getattr(calls[call.pk], f) for f in fields] == [getattr(call, f) for f in fields]
    assert calls[rollback.pk].partner_balance == 800
    attempts = WalletCallAttempt.objects.order_by("call__transaction_id")
    assert [(a.call_id, a.status_code, a.error, a.duration_ms) for a in attempts] == [
        (credited.pk, 200, "", 2000),
        (failed.pk, 500, "HTTP 500", 0),
        (rollback.pk, 200, "", 40),
        (again.pk, 200, "", 50),
    ]
    acknowledged = AuditEvent.objects.filter(action="wallet_call.acknowledged", actor_id="seamless_wallet")
    assert sorted((e.object_id, e.data) for e in acknowledged) == [
        ("t1-credit", {"kind": "credit", "amount": 200, "status_code": 200}),
        ("t4-rollback", {"kind": "rollback", "amount": 4, "status_code": 200}),
        ("t5-credit", {"kind": "credit", "amount": 5, "status_code": 200}),
    ]
    rounds = {r.pk: r for r in Round.objects.all()}
    assert (rounds[won.id].status, rounds[lost.id].status) == ("settled", "resolved")
    assert rounds[won.id].settled_at is not None and rounds[settled_before.id].settled_at is None
    settled = AuditEvent.objects.get(action="round.settled")
    assert (settled.actor_type, settled.actor_id, settled.object_type, settled.object_id, settled.data) == (
        "system",
        "settlement",
        "round",
        str(won.id),
        {"payout": 200, "credit": "t1-credit"},
    )
    assert sql.credits_record(answers=answers[:1]) == [(credited.pk, False, "acknowledged", None, None)]
    assert WalletCallAttempt.objects.count() == 4


def test_credits_record_names_no_partner_that_takes_no_webhooks_and_records_nothing_for_nothing(fake_dns):
    partner = _seamless_partner(fake_dns)
    player, table = make_player(balance=1_000, partner=partner, external_id="p-1"), TableFactory()
    won = _placed(player, table, payout=200)
    credit = _call(partner, player, 1, round_id=won.id, amount=200)
    assert sql.credits_record(answers=[_answer(credit)]) == [(credit.pk, True, "acknowledged", won.id, None)]
    assert sql.credits_record(answers=[]) == []


def test_a_wallet_call_is_written_into_no_index_that_nothing_reads():
    """A seamless round writes its debit's row twice and its credit's three times, each into every
    index of the table: a partner's calls are found by `walletcall_partner_day` (partner first),
    and a transaction id only ever whole (its unique constraint's index), so neither an index of
    the partner alone nor Django's LIKE index of the transaction id is there."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'casino_walletcall'")
        indexes = dict(cursor.fetchall())
    assert not [name for name, definition in indexes.items() if "pattern_ops" in definition], indexes
    assert [name for name, definition in indexes.items() if "(partner_id" in definition] == ["walletcall_partner_day"]
    assert "(transaction_id)" in indexes["casino_walletcall_transaction_id_key"]
