"""Round services: timeouts taken by the system, Redis down, persistent shoes, table snapshots."""

import contextlib
import math
import threading
import time
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from accounts.tokens import token_issue
from casino.engine import shoe, shuffle
from casino.engine.fairness import HmacStream
from casino.models import Round, RoundStatus, ShoeState
from casino.services import rounds, settlement
from casino.services.fairness import seed_pair_rotate
from casino.services.rounds import (
    DEADLINE_HOP_S,
    DEADLINE_WINDOW_KEY,
    DEADLINE_WINDOW_S,
    DECIDE_DUE_TASK,
    round_deadline_enqueue,
    round_decide,
    round_place,
    rounds_decide_timed_out,
    rounds_decide_when_due,
)
from casino.services.settlement import CLOCK_MARGIN_S, rounds_settle_due, rounds_settle_overdue
from core.actors import Actor
from core.models import AuditEvent
from ledger.models import Account, AccountKind, Posting
from ledger.selectors import player_wallet_summary
from ledger.services import house_account
from ledger.verification import ledger_verify
from tests.casino.helpers import set_next_round
from tests.databases import advisory_locks_held, other_connection
from tests.factories import TableFactory, make_player

pytestmark = pytest.mark.django_db


def place(player, table, main=1000, tie=0):
    return round_place(player=player, table_id=table.pk, main_bet=main, tie_bet=tie, actor=Actor.player(player))


def overdue(round_):
    Round.objects.filter(pk=round_.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))


def test_an_overdue_decision_goes_to_war_by_the_house_rule_and_is_logged_as_the_systems(table):
    player = make_player(balance=10_000)
    set_next_round(player, tie=True)
    round_ = place(player, table)
    assert rounds_decide_timed_out() == 0  # not due yet
    overdue(round_)
    assert rounds_decide_timed_out() == 1
    round_.refresh_from_db()
    assert round_.decision == "war" and round_.decided_by_type == "system" and round_.decision_timed_out
    assert round_.raise_bet == 1000
    assert AuditEvent.objects.filter(action="round.decided", object_id=str(round_.id), actor_type="system").exists()


def test_an_overdue_decision_surrenders_when_the_raise_cannot_be_paid(table):
    player = make_player(balance=1_000)
    set_next_round(player, tie=True)
    round_ = place(player, table)
    overdue(round_)
    rounds_decide_timed_out()
    round_.refresh_from_db()
    assert round_.decision == "surrender" and round_.decision_timed_out and round_.net == -500


def _overdue_tie(table, *, balance):
    player = make_player(balance=balance)
    set_next_round(player, tie=True)
    round_ = place(player, table)
    overdue(round_)
    return round_


def test_overdue_decisions_are_taken_together_each_by_what_its_wallet_can_pay(table, django_assert_max_num_queries):
    rich, poor, other = (_overdue_tie(table, balance=b) for b in (10_000, 1_000, 5_000))
    # The due ids, then one transaction (a savepoint in the test's, two statements more): the
    # rounds, their accounts, and every decision at once.
    with django_assert_max_num_queries(6):
        assert rounds_decide_timed_out() == 3
    decided = {r.pk: r for r in Round.objects.filter(pk__in=[rich.pk, poor.pk, other.pk])}
    assert [decided[r.pk].decision for r in (rich, poor, other)] == ["war", "surrender", "war"]
    assert all(r.decision_timed_out and r.decided_by_type == "system" for r in decided.values())
    assert decided[poor.pk].net == -500 and decided[rich.pk].raise_bet == 1000
    assert AuditEvent.objects.filter(action="round.decided", actor_type="system").count() == 3
    for round_, wallet in ((rich, 10_000 - 2_000), (poor, 1_000 - 1_000), (other, 5_000 - 2_000)):
        assert player_wallet_summary(player=round_.player)["balance"] == wallet  # the bet and the raise, if any
    assert rounds_decide_timed_out() == 0
    assert ledger_verify().ok


@pytest.mark.django_db(transaction=True)
def test_the_house_rule_replays_the_cards_before_the_players_accounts_are_locked(table, monkeypatch):
    """A round being placed for the player meanwhile waits for the decision's writing only, not
    for the cards' replay: while a round is replayed, another connection can still take the
    player's wallet (docs/BENCHMARKS.md, "The 1-client tail")."""
    round_ = _overdue_tie(table, balance=10_000)
    wallet_id = Account.objects.get(player=round_.player, kind=AccountKind.PLAYER_WALLET).pk
    wallet_free_during_replays = []
    replay = rounds._decided

    def replay_watched(*args, **kwargs):
        with other_connection() as other:
            try:
                other.execute("SELECT 1 FROM ledger_account WHERE id = %s FOR NO KEY UPDATE NOWAIT", [wallet_id])
                wallet_free_during_replays.append(True)
            except psycopg.errors.LockNotAvailable:
                wallet_free_during_replays.append(False)
        return replay(*args, **kwargs)

    monkeypatch.setattr(rounds, "_decided", replay_watched)
    assert rounds_decide_timed_out(wait_for_accounts=True) == 1
    assert wallet_free_during_replays == [True]
    assert Round.objects.get(pk=round_.pk).decision == "war"


@contextlib.contextmanager
def _wallet_held(player):
    """Another connection holding the player's wallet (as a round being placed does): it lets go
    when the block ends, or when the caller commits it."""
    wallet_id = Account.objects.get(player=player, kind=AccountKind.PLAYER_WALLET).pk
    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"], dbname=settings["NAME"]
    ) as other:
        other.execute("SELECT 1 FROM ledger_account WHERE id = %s FOR NO KEY UPDATE", [wallet_id])
        yield other


@pytest.mark.django_db(transaction=True)
def test_beat_leaves_a_round_whose_wallet_is_busy_to_its_next_run_and_the_deadline_task_waits(table):
    """The deadline task does not leave a round behind: nobody may come after it (beat down,
    nobody playing)."""
    busy, free = _overdue_tie(table, balance=10_000), _overdue_tie(table, balance=10_000)
    with _wallet_held(busy.player):
        assert rounds_decide_timed_out() == 1  # without waiting for the busy wallet
        assert Round.objects.get(pk=busy.pk).status == RoundStatus.AWAITING_DECISION
        assert Round.objects.get(pk=free.pk).decision == "war"
    assert rounds_decide_timed_out() == 1
    assert Round.objects.get(pk=busy.pk).decision == "war"
    late = _overdue_tie(table, balance=10_000)
    with _wallet_held(late.player) as other:
        release = threading.Timer(0.5, other.commit)
        release.start()
        started = time.monotonic()
        assert rounds_decide_when_due(ends=time.time() - 0.01) == 1
        assert time.monotonic() - started >= 0.4  # it waited for the wallet
        release.join()
    assert Round.objects.get(pk=late.pk).decision == "war"


def test_the_round_plays_to_the_rules_it_was_placed_under(table):
    player = make_player(balance=10_000)
    set_next_round(player, tie=True)
    round_ = place(player, table)
    table.is_open = False
    table.burn = 0
    table.save()
    decided = round_decide(player=player, round_id=round_.id, action="war", actor=Actor.player(player))
    assert len(decided.burned.split()) == 3


def test_placing_rounds_works_while_redis_is_down_and_the_sweeper_settles_later(
    eager_celery, table, django_capture_on_commit_callbacks
):
    eager_celery.conf.task_always_eager = False
    eager_celery.conf.broker_url = "redis://127.0.0.1:1/0"
    player = make_player(balance=10_000)
    started = time.monotonic()
    for _ in range(5):
        set_next_round(player, tie=False)
        with django_capture_on_commit_callbacks(execute=True):
            place(player, table)
    assert time.monotonic() - started < 10  # no request hangs on the dead broker
    assert Round.objects.filter(status=RoundStatus.RESOLVED).count() == 5
    Round.objects.update(resolved_at=timezone.now() - timedelta(seconds=10))
    assert rounds_settle_overdue() == 5
    assert player_wallet_summary(player=player)["in_play"] == 0 and ledger_verify().ok


def test_a_persistent_shoe_deals_consecutive_cards_and_reshuffles_at_the_cut(db):
    table = TableFactory(shuffle="persistent", penetration=50, decks=1)
    player = make_player(balance=100_000)
    rounds = []
    while len(rounds) < 30:
        round_ = place(player, table)
        if round_.status == RoundStatus.AWAITING_DECISION:
            round_ = round_decide(player=player, round_id=round_.id, action="war", actor=Actor.player(player))
        rounds.append(round_)
    first = rounds[0]
    pair = first.seed_pair
    cards = [c.code for c in shuffle(shoe(1), HmacStream(pair.server_seed, pair.client_seed, first.shoe_nonce))]
    same_shoe = [r for r in rounds if r.shoe_nonce == first.shoe_nonce]
    position = 0
    for r in same_shoe:
        assert r.shoe_position == position and (r.player_card, r.dealer_card) == (cards[position], cards[position + 1])
        position += 2 if not r.decision else 2 + 3 + 2
    assert position >= 26 or len(same_shoe) == len(rounds)
    assert len({r.shoe_nonce for r in rounds}) >= 2  # the cut card came out and a new shoe began
    assert ShoeState.objects.get(player=player, table=table).cut == 26
    assert ledger_verify().ok


def test_decision_values_follow_the_cards_seen(db):
    table = TableFactory()
    player = make_player(balance=10_000)
    set_next_round(player, tie=True)
    round_ = place(player, table)
    from casino.selectors import round_decision_values

    values = round_decision_values(round_)
    assert values.surrender == -0.5 and -0.40 < values.war < -0.38


# --- deadlines without beat (issue #33 item 3) ----------------------------------------------------------


@pytest.fixture
def sent_tasks(eager_celery, monkeypatch):
    """A broker that records what is queued instead of sending it."""
    eager_celery.conf.task_always_eager = False
    sent = []
    monkeypatch.setattr(
        eager_celery,
        "send_task",
        lambda name, args=None, countdown=None, **kwargs: sent.append((name, args, countdown)),
    )
    return sent


def _window_of(deadline) -> tuple[int, float]:
    window = math.ceil(deadline.timestamp() / DEADLINE_WINDOW_S)
    return window, window * DEADLINE_WINDOW_S


def test_a_tie_asks_a_worker_for_the_house_rule_once_its_deadlines_window_closes(
    sent_tasks, django_capture_on_commit_callbacks
):
    table = TableFactory(max_tie_bet=0, decision_timeout_s=30)
    player = make_player(balance=10_000)
    set_next_round(player, tie=True)
    with django_capture_on_commit_callbacks(execute=True):
        tie = round_place(player=player, table_id=table.pk, main_bet=100, actor=Actor.player(player))
    deadlines = [task for task in sent_tasks if task[0] == DECIDE_DUE_TASK]
    _, ends = _window_of(tie.decision_deadline)
    assert len(deadlines) == 1 and deadlines[0][1] == [ends]
    assert tie.decision_deadline.timestamp() <= ends < tie.decision_deadline.timestamp() + DEADLINE_WINDOW_S
    assert 29 < deadlines[0][2] <= 30 + DEADLINE_WINDOW_S + CLOCK_MARGIN_S
    set_next_round(player, tie=False)
    with django_capture_on_commit_callbacks(execute=True):
        round_place(player=player, table_id=table.pk, main_bet=100, actor=Actor.player(player))
    assert [task for task in sent_tasks if task[0] == DECIDE_DUE_TASK] == deadlines  # a resolved round: none


def _deadlines(*offsets_s, ahead_s=60):
    """Deadlines `offsets_s` after the start of a window `ahead_s` from now, no window of theirs open."""
    start = (math.floor(time.time() / DEADLINE_WINDOW_S) + round(ahead_s / DEADLINE_WINDOW_S)) * DEADLINE_WINDOW_S
    deadlines = [datetime.fromtimestamp(start + offset, tz=UTC) for offset in offsets_s]
    cache.delete_many([f"{DEADLINE_WINDOW_KEY}:{_window_of(deadline)[0]}" for deadline in deadlines])
    return deadlines


def test_ties_whose_deadlines_fall_in_one_window_share_one_task(sent_tasks, monkeypatch):
    first, same, following = _deadlines(0.01, DEADLINE_WINDOW_S - 0.01, DEADLINE_WINDOW_S + 0.01)
    round_deadline_enqueue(first)
    with monkeypatch.context() as patched:
        patched.setattr(settlement, "cache_window_open", lambda *a, **k: pytest.fail("Redis asked"))
        round_deadline_enqueue(same)  # this process knows of the window: it asks Redis nothing
    assert [(name, args) for name, args, _ in sent_tasks] == [(DECIDE_DUE_TASK, [_window_of(first)[1]])]
    round_deadline_enqueue(following)
    assert [args for _, args, _ in sent_tasks] == [[_window_of(first)[1]], [_window_of(following)[1]]]
    assert _window_of(following)[1] - _window_of(first)[1] == pytest.approx(DEADLINE_WINDOW_S)


def test_a_deadlines_window_another_process_opened_is_ridden_too(sent_tasks):
    (deadline,) = _deadlines(0.1, ahead_s=70)
    window, _ = _window_of(deadline)
    cache.set(f"{DEADLINE_WINDOW_KEY}:{window}", "9999999999.0", timeout=120)  # another web process's window
    round_deadline_enqueue(deadline)
    assert sent_tasks == []


def test_a_failed_publish_of_a_deadline_closes_its_window_and_never_raises(eager_celery, monkeypatch):
    eager_celery.conf.task_always_eager = False

    def refuse(name, **options):
        raise ConnectionError("broker down")

    monkeypatch.setattr(eager_celery, "send_task", refuse)
    (deadline,) = _deadlines(0.1, ahead_s=80)
    round_deadline_enqueue(deadline)  # logged, never raised
    window, _ = _window_of(deadline)
    assert cache.get(f"{DEADLINE_WINDOW_KEY}:{window}") is None and window not in rounds._known_deadline_windows


def test_the_deadline_task_takes_the_house_rule_once_due_and_comes_back_when_early(sent_tasks):
    table = TableFactory(max_tie_bet=0, decision_timeout_s=600)
    player = make_player(balance=10_000)
    set_next_round(player, tie=True)
    tie = round_place(player=player, table_id=table.pk, main_bet=100, actor=Actor.player(player))
    sent_tasks.clear()
    ends = time.time() + 600
    assert rounds_decide_when_due(ends=ends) == 0  # early (a long wait is taken in hops)
    assert sent_tasks == [(DECIDE_DUE_TASK, [ends], DEADLINE_HOP_S + CLOCK_MARGIN_S)]
    assert rounds_decide_when_due(ends=time.time() - 0.01) == 0  # the window closed, the deadline is later
    overdue(tie)
    assert rounds_decide_when_due(ends=time.time() - 0.01) == 1
    decided = Round.objects.get(pk=tie.pk)
    assert decided.decision_timed_out and decided.status != RoundStatus.AWAITING_DECISION
    assert rounds_decide_when_due(ends=time.time() - 0.01) == 0  # decided: nothing more
    assert len(sent_tasks) == 1


def test_settlement_in_sql_posts_to_the_house_shard_that_python_picks_for_the_key(table):
    """One rule of the house shard (`ledger_house_shard`): a round settled by the set-based SQL
    settlement pays the shard that `house_account` answers for its settlement key."""
    player = make_player(balance=100_000)
    rounds = []
    for _ in range(8):
        set_next_round(player, tie=False, player_wins=False)
        rounds.append(place(player, table))
    assert rounds_settle_due() == 8
    for round_ in rounds:
        key = f"round:{round_.id}:settle"
        paid = Posting.objects.get(entry__idempotency_key=key, account__kind=AccountKind.HOUSE)
        assert paid.account_id == house_account(currency="EUR", spread_by=key).id
    assert len({house_account(currency="EUR", spread_by=f"round:{r.id}:settle").shard for r in rounds}) > 2


# --- placed by the API: each statement committing alone ------------------------------------------------


def _api_place(client, table, key, main=1000):
    return client.post(
        "/api/v1/rounds/",
        {"table": str(table.pk), "main_bet": main},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


@pytest.fixture
def between_the_statements(monkeypatch):
    """`happen(what)`: `what()` runs once, after the next round's first statement and before its
    second (while its checks run), as another request would: on a connection of its own, committed."""
    pending = []
    checked = rounds.protection_check_stake

    def elsewhere(what):
        failed = []

        def run():
            try:
                what()
            except Exception as exc:  # raised again in the request's thread
                failed.append(exc)
            finally:
                connection.close()

        thread = threading.Thread(target=run)
        thread.start()
        thread.join(timeout=30)
        if failed:
            raise failed[0]

    def protection_check_stake(**kwargs):
        while pending:
            elsewhere(pending.pop())
        return checked(**kwargs)

    monkeypatch.setattr(rounds, "protection_check_stake", protection_check_stake)
    return pending.append


@pytest.mark.django_db(transaction=True)
def test_a_round_whose_nonce_another_round_took_meanwhile_is_placed_again_locking(
    player_client, player, table, between_the_statements
):
    """A round reads its seed pair unlocked; another round of the player committing between its two
    statements takes that nonce, so its write writes nothing and it runs again, in a transaction
    that locks the pair: one round, on the next nonce, staked once."""
    assert _api_place(player_client, table, "first").status_code == 201
    pair = Round.objects.get().seed_pair
    taken = pair.next_nonce
    between_the_statements(
        lambda: round_place(player=player, table_id=table.pk, main_bet=500, actor=Actor.player(player))
    )
    response = _api_place(player_client, table, "raced")
    assert response.status_code == 201, response.content
    raced = Round.objects.get(pk=response.json()["id"])
    assert (raced.seed_pair_id, raced.nonce) == (pair.pk, taken + 1)
    assert sorted(Round.objects.values_list("nonce", flat=True)) == [0, 1, 2]
    assert advisory_locks_held() == 0
    replay = _api_place(player_client, table, "raced")
    assert replay["Idempotent-Replayed"] == "true" and replay.json()["id"] == str(raced.pk)
    assert Round.objects.count() == 3 and ledger_verify().ok


@pytest.mark.django_db(transaction=True)
def test_a_round_whose_seed_pair_was_rotated_meanwhile_is_dealt_from_the_new_pair(
    player_client, player, table, between_the_statements
):
    """The nonce is counted only on a pair still active: a round read before the player revealed
    the pair's server seed is dealt again from the new pair, never from a revealed seed."""
    set_next_round(player, tie=False)  # a tie waiting for its decision would hold the rotation back
    assert _api_place(player_client, table, "first").status_code == 201
    old = Round.objects.get().seed_pair
    between_the_statements(lambda: seed_pair_rotate(player=player, client_seed="mine", actor=Actor.player(player)))
    response = _api_place(player_client, table, "after-rotation")
    assert response.status_code == 201, response.content
    placed = Round.objects.get(pk=response.json()["id"])
    assert placed.seed_pair_id != old.pk and placed.seed_pair.active and placed.nonce == 0
    old.refresh_from_db()
    assert not old.active and old.next_nonce == 1
    assert advisory_locks_held() == 0 and ledger_verify().ok


@pytest.mark.django_db(transaction=True)
def test_a_round_at_a_persistent_shoe_moves_the_shoe_with_the_round_or_not_at_all(
    player_client, player, between_the_statements
):
    table = TableFactory(shuffle="persistent", penetration=75, decks=1, max_tie_bet=0)
    set_next_round(player, tie=False)  # the pair exists; a persistent shoe deals from its own position
    assert _api_place(player_client, table, "p1").status_code == 201
    state = ShoeState.objects.get(player=player, table=table)
    position = state.position
    between_the_statements(
        lambda: round_place(player=player, table_id=table.pk, main_bet=500, actor=Actor.player(player))
    )
    response = _api_place(player_client, table, "p2")
    assert response.status_code == 201, response.content

    def used(round_):  # a tie reserves its burned and war cards (casino/services/rounds.py)
        return 4 + round_.rules["burn"] if round_.status == RoundStatus.AWAITING_DECISION else 2

    _first, other, raced = Round.objects.order_by("nonce")
    assert other.shoe_position == position and raced.shoe_position == position + used(other)
    state.refresh_from_db()
    assert state.position == raced.shoe_position + used(raced)
    assert advisory_locks_held() == 0 and ledger_verify().ok


@pytest.mark.django_db(transaction=True)
def test_a_refused_round_leaves_no_lock_and_its_refusal_is_the_first_answer(player_client, player, table):
    refused = _api_place(player_client, table, "too-much", main=200_000)  # beyond the table's limit
    assert refused.status_code == 422 and refused.json()["code"] == "bet_out_of_limits"
    assert advisory_locks_held() == 0
    replay = _api_place(player_client, table, "too-much", main=200_000)
    assert replay["Idempotent-Replayed"] == "true" and replay.content == refused.content
    poor = make_player(balance=500, username="poor")
    player_client.defaults["HTTP_AUTHORIZATION"] = f"Token {token_issue(user=poor.user)}"
    assert _api_place(player_client, table, "broke").json()["code"] == "insufficient_funds"
    assert advisory_locks_held() == 0 and not Round.objects.filter(player=poor).exists()
