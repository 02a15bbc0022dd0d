"""Every pair of paths that move a player's money, run at the same time on one player, on real
PostgreSQL: no deadlock (docs/ARCHITECTURE.md "Lock order").

Issue #33: four threads moving money in and out of one player for 20 s met 20 deadlocks, because a
deposit locked the wallet before the ledger locked the partner's account and the wallet in
primary-key order. Each pair runs on two players, one whose wallet sorts before the partner's
settlement account and one whose wallet sorts after it, with settlement left to its own path; a
seamless partner's player (stakes and raises funded from its wallet) runs its own paths in pairs.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, connections
from django.test import Client
from django.utils import timezone

from accounts.models import Transfer, TransferDirection
from accounts.partners import partner_player_upsert, partner_transfer
from accounts.services import partner_create, player_play_money_top_up
from casino.models import Round, RoundStatus
from casino.services.rounds import round_decide, round_place, rounds_decide_overdue_for_player
from casino.services.settlement import rounds_settle_overdue
from casino.services.wallets import wallet_calls_send_due
from core.actors import Actor
from core.errors import ServiceError
from ledger.models import Account, AccountKind
from ledger.services import adjustment_approve, adjustment_propose, partner_account_open
from ledger.verification import ledger_verify
from protection import services as protection_services
from protection.models import LimitKind, LimitPeriod
from protection.services import limit_set
from tests.casino.helpers import PartnerClient
from tests.casino.seamless import BASE, PLAYER, SECRET
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db(transaction=True)

DEADLOCK = "40P01"
ROUNDS = 4  # each path's calls per thread and pair


@pytest.fixture
def no_broker(eager_celery, monkeypatch):
    """Settlement is not run after each commit: the settling path below takes it, concurrently.
    Messages are dropped (a broker that is down costs a 2 s connection attempt now and then)."""
    eager_celery.conf.task_always_eager = False
    monkeypatch.setattr(eager_celery, "send_task", lambda *args, **kwargs: None)


class Floor:
    """A partner's player with money, and two staff members for adjustments."""

    def __init__(self, *, partner, player, table, staff) -> None:
        self.partner, self.player, self.table, self.staff = partner, player, table, staff
        self.actor = Actor.partner(partner)

    def tie(self) -> Round:
        """Rounds placed until one is a tie (about one in thirteen): a round awaiting a decision."""
        for _ in range(500):
            round_ = round_place(player=self.player, table_id=self.table.pk, main_bet=100, actor=self.actor)
            if round_.status == RoundStatus.AWAITING_DECISION:
                return round_
        raise AssertionError("no tie in 500 rounds")


def transfer_in(floor: Floor, n: int) -> None:
    partner_transfer(
        partner=floor.partner,
        player=floor.player,
        direction=TransferDirection.IN,
        amount=100,
        reference=f"in-{floor.player.external_id}-{n}-{uuid.uuid4().hex[:8]}",
    )


def transfer_out(floor: Floor, n: int) -> None:
    partner_transfer(
        partner=floor.partner,
        player=floor.player,
        direction=TransferDirection.OUT,
        amount=100,
        reference=f"out-{floor.player.external_id}-{n}-{uuid.uuid4().hex[:8]}",
    )


def place(floor: Floor, n: int) -> None:
    round_place(player=floor.player, table_id=floor.table.pk, main_bet=100, actor=floor.actor)


def go_to_war(floor: Floor, n: int) -> None:
    round_decide(player=floor.player, round_id=str(floor.tie().pk), action="war", actor=floor.actor)


def house_rule(floor: Floor, n: int) -> None:
    Round.objects.filter(pk=floor.tie().pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    rounds_decide_overdue_for_player(player=floor.player)  # the player reads their rounds


def settle(floor: Floor, n: int) -> None:
    rounds_settle_overdue(older_than_s=0)


def adjust(floor: Floor, n: int) -> None:
    maker, checker = floor.staff
    adjustment = adjustment_propose(player=floor.player, amount=100, reason=f"goodwill {n}", proposed_by=maker)
    adjustment_approve(adjustment=adjustment, approved_by=checker)


def top_up(floor: Floor, n: int) -> None:
    player_play_money_top_up(player=floor.player, amount=10_000, idempotency_key=f"top-up:{uuid.uuid4()}")


def deposit_limit(floor: Floor, n: int) -> None:
    limit_set(player=floor.player, kind=LimitKind.DEPOSIT, period=LimitPeriod.DAY, amount=10**9 - n, actor=floor.actor)


PATHS = {
    "transfer in": transfer_in,
    "transfer out": transfer_out,
    "place": place,
    "war": go_to_war,
    "house rule": house_rule,
    "settle": settle,
    "adjust": adjust,
    "top-up": top_up,
    "deposit limit": deposit_limit,
}


@pytest.fixture
def floors(no_broker, play_money):
    partner, _ = partner_create(name="Lock order casino")
    table = TableFactory(max_tie_bet=0, decision_timeout_s=600)
    user = get_user_model()
    staff = (user.objects.create_user("maker", is_staff=True), user.objects.create_user("checker", is_staff=True))
    before, _ = partner_player_upsert(partner=partner, external_id="sorts-before", currency="EUR")
    settlement = partner_account_open(partner=partner, currency="EUR")
    after, _ = partner_player_upsert(partner=partner, external_id="sorts-after", currency="EUR")
    wallets = {p.external_id: Account.objects.get(player=p, kind=AccountKind.PLAYER_WALLET).pk for p in (before, after)}
    assert wallets["sorts-before"] < settlement.pk < wallets["sorts-after"]
    made = []
    for player in (before, after):
        partner_transfer(
            partner=partner,
            player=player,
            direction=TransferDirection.IN,
            amount=500_000,
            reference=f"opening-{player.external_id}",
        )
        made.append(Floor(partner=partner, player=player, table=table, staff=staff))
    return made


def run_pair(floor: Floor, first: str, second: str) -> tuple[Counter, list[BaseException]]:
    outcomes: Counter = Counter()
    failures: list[BaseException] = []
    barrier = threading.Barrier(2)

    def run(name: str) -> None:
        try:
            barrier.wait(timeout=20)
            for n in range(ROUNDS):
                try:
                    PATHS[name](floor, n)
                    outcomes[name, "done"] += 1
                except ServiceError as refusal:  # a refusal (funds, limits) is an answer, not a failure
                    outcomes[name, refusal.code] += 1
        except BaseException as exc:  # every failure is reported below
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(name,)) for name in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcomes, failures


def sqlstate(exc: BaseException) -> str | None:
    return getattr(exc.__cause__, "sqlstate", None) if isinstance(exc, DatabaseError) else None


def test_every_two_money_paths_at_once_on_one_player_never_deadlock(floors):
    deadlocks, other = [], []
    for first, second in itertools.combinations_with_replacement(PATHS, 2):
        for floor in floors:
            outcomes, failures = run_pair(floor, first, second)
            deadlocks += [
                f"{first} + {second} on {floor.player.external_id}" for e in failures if sqlstate(e) == DEADLOCK
            ]
            other += [(first, second, e) for e in failures if sqlstate(e) != DEADLOCK]
            if not failures:
                assert sum(outcomes.values()) == 2 * ROUNDS, outcomes
    assert not deadlocks, deadlocks
    assert not other, other
    assert ledger_verify().ok


def test_a_transfer_in_being_checked_and_a_transfer_out_wait_for_each_other_in_one_order(floors, monkeypatch):
    """The deadlock of the issue, made to happen every time: the transfer in stops in its deposit
    check (holding what it locked before the check) while a transfer out of the same wallet starts."""
    floor = floors[1]  # its wallet sorts after the partner's settlement account
    checking, go = threading.Event(), threading.Event()
    check = protection_services._check_guards

    def held_check(**kwargs):
        checking.set()
        go.wait(timeout=10)
        return check(**kwargs)

    monkeypatch.setattr(protection_services, "_check_guards", held_check)
    failures: list[BaseException] = []

    def run(path) -> None:
        try:
            path(floor, 0)
        except BaseException as exc:  # reported below
            failures.append(exc)
        finally:
            connection.close()

    deposit = threading.Thread(target=run, args=(transfer_in,))
    deposit.start()
    assert checking.wait(timeout=10)
    withdrawal = threading.Thread(target=run, args=(transfer_out,))
    withdrawal.start()
    withdrawal.join(timeout=0.5)  # it waits for a lock the deposit holds
    go.set()
    deposit.join(timeout=20)
    withdrawal.join(timeout=20)
    assert not failures, failures
    assert Transfer.objects.filter(player=floor.player).exclude(reference__startswith="opening").count() == 2


# --- a seamless partner's player: its stakes and raises funded from the partner's wallet ------------

SEAMLESS_ROUNDS = 2


def seamless_paths(partner, table):
    """The money paths of a seamless player, through the API (each call a thread's own client)."""
    rounds = f"{BASE}/{PLAYER}/rounds/"

    def api() -> PartnerClient:
        return PartnerClient(Client(), partner, SECRET)

    def place_one(client: PartnerClient) -> dict:
        answer = client.post(
            rounds, {"table": table.pk, "main_bet": 100, "tie_bet": 0}, HTTP_IDEMPOTENCY_KEY=f"k-{uuid.uuid4()}"
        )
        assert answer.status_code in (201, 422), answer.content
        return answer.json()

    def tie(client: PartnerClient) -> str | None:
        for _ in range(200):
            placed = place_one(client)
            if placed.get("status") == "awaiting_decision":
                return placed["id"]
        return None

    def stake(n: int) -> None:
        place_one(api())

    def war(n: int) -> None:
        client = api()
        round_id = tie(client)
        answer = client.post(
            f"{rounds}{round_id}/decision/", {"action": "war"}, HTTP_IDEMPOTENCY_KEY=f"d-{n}-{round_id}"
        )
        assert answer.status_code in (200, 409, 422), answer.content

    def surrender_by_house_rule(n: int) -> None:
        client = api()
        round_id = tie(client)
        Round.objects.filter(pk=round_id).update(decision_deadline=timezone.now() - timedelta(seconds=1))
        assert client.get(rounds).status_code == 200  # reading the rounds takes the house rule

    def settle_and_credit(n: int) -> None:
        rounds_settle_overdue(older_than_s=0)
        wallet_calls_send_due()

    return {"stake": stake, "war": war, "house rule": surrender_by_house_rule, "settle": settle_and_credit}


def run_together(paths: dict, first: str, second: str, rounds: int) -> list[tuple[str, BaseException]]:
    """Two paths in two threads at once, `rounds` calls each: what failed."""
    barrier, failures = threading.Barrier(2), []

    def run(name: str) -> None:
        try:
            barrier.wait(timeout=20)
            for n in range(rounds):
                paths[name](n)
        except BaseException as exc:  # every failure is reported by the caller
            failures.append((name, exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(name,)) for name in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return failures


def test_every_two_money_paths_of_a_seamless_player_at_once_never_deadlock(seamless, table):
    partner, _api, wallet = seamless
    wallet.set_balance(player=PLAYER, currency="EUR", amount=10**9)
    paths = seamless_paths(partner, TableFactory(max_tie_bet=0, decision_timeout_s=600))
    failures = [
        (first, second, name, exc)
        for first, second in itertools.combinations_with_replacement(paths, 2)
        for name, exc in run_together(paths, first, second, SEAMLESS_ROUNDS)
    ]
    assert not [failure for failure in failures if sqlstate(failure[3]) == DEADLOCK], failures
    assert not failures, failures
    assert ledger_verify().ok
