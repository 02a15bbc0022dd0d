"""Seamless rounds settled by the batch statement and their credits sent in batches (issue 34): one
sender message per settlement batch, never one per credit; a batch's credits in flight together
over kept-alive connections; each credited exactly once however many senders run at once; a
batch whose answers differ recorded call by call. Real PostgreSQL, a real HTTP wallet."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from accounts.models import Player
from casino.models import Round, RoundStatus, WalletCall, WalletCallAttempt
from casino.services import rounds as round_services
from casino.services.settlement import rounds_settle_due
from casino.services.wallets import SEND_CREDITS_TASK, wallet_credits_send
from ledger.models import Account, AccountKind
from ledger.verification import ledger_verify
from tests.casino.helpers import set_next_round
from tests.casino.seamless import PLAYER, place, retries_due_now
from tests.wallet_server import Fault

pytestmark = pytest.mark.django_db(transaction=True)


def _resolved_rounds_unsettled(api, table, monkeypatch, *, count: int) -> list[Round]:
    """`count` seamless rounds placed and resolved (won and lost in turn), none settled yet: the
    message that would settle each is not sent."""
    monkeypatch.setattr(round_services, "settlement_enqueue", lambda round_id: None)
    player = Player.objects.get(external_id=PLAYER)
    for n in range(count):
        set_next_round(player, tie=False, player_wins=n % 2 == 0)
        answer = place(api, key=f"k-{n}", table=table)
        assert answer.status_code == 201, answer.content
    monkeypatch.undo()
    rounds = list(Round.objects.filter(status=RoundStatus.RESOLVED))
    assert len(rounds) == count and not WalletCall.objects.filter(kind="credit").exists()
    return rounds


def _books_match(wallet) -> None:
    """The partner's wallet holds what our rounds say; our books verify; every round settled once."""
    staked = sum(r.main_bet + r.tie_bet + r.raise_bet for r in Round.objects.all())
    paid = sum(r.payout for r in Round.objects.all())
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000 - staked + paid
    assert not Round.objects.exclude(status=RoundStatus.SETTLED).exists()
    run = ledger_verify(triggered_by="test")
    assert run.ok, run.summary
    assert Account.objects.get(kind=AccountKind.PLAYER_WALLET, player__external_id=PLAYER).balance == 0


def _broker_recording(eager_celery, monkeypatch) -> list[str]:
    """A broker that records the names of the tasks queued instead of sending them."""
    sent: list[str] = []
    eager_celery.conf.task_always_eager = False
    monkeypatch.setattr(eager_celery, "send_task", lambda name, *args, **kwargs: sent.append(name))
    return sent


def _broker_gone(eager_celery, monkeypatch) -> None:
    monkeypatch.undo()
    eager_celery.conf.task_always_eager = True


def test_a_settlement_batch_records_its_credits_and_asks_for_one_sender(seamless, table, monkeypatch, eager_celery):
    _partner, api, wallet = seamless
    rounds = _resolved_rounds_unsettled(api, table, monkeypatch, count=6)
    sent = _broker_recording(eager_celery, monkeypatch)
    assert rounds_settle_due() == 6
    assert sent == [SEND_CREDITS_TASK]  # one message for the batch's six credits
    credits = WalletCall.objects.filter(kind="credit", status="pending")
    assert sorted((c.round_id, c.amount) for c in credits) == sorted((r.id, r.payout) for r in rounds)
    assert not wallet.calls_named("credit")
    assert set(Round.objects.values_list("status", flat=True)) == {RoundStatus.RESOLVED}  # until acknowledged
    assert rounds_settle_due() == 0  # books settled once: a round waiting for its credit is not taken again
    _broker_gone(eager_celery, monkeypatch)
    assert wallet_credits_send() == 6
    assert sorted(c.body["round"] for c in wallet.calls_named("credit")) == sorted(str(r.id) for r in rounds)
    _books_match(wallet)


def test_a_batch_of_credits_is_in_flight_at_once_over_kept_alive_connections(seamless, table, monkeypatch):
    _partner, api, wallet = seamless
    _resolved_rounds_unsettled(api, table, monkeypatch, count=12)
    wallet.latency_s = 0.3
    rounds_settle_due()  # eager: the credits are sent after the batch's commit, in this process
    answered = [call.at for call in wallet.calls_named("credit", status=200)]
    assert len(answered) == 12
    # One after the other they would take 12 x 0.3 s, their answers 3.3 s apart at least.
    assert max(answered) - min(answered) < 1.5
    _books_match(wallet)


def test_senders_running_at_once_credit_each_round_exactly_once(seamless, table, monkeypatch, eager_celery):
    _partner, api, wallet = seamless
    _resolved_rounds_unsettled(api, table, monkeypatch, count=16)
    wallet.latency_s = 0.05
    _broker_recording(eager_celery, monkeypatch)
    rounds_settle_due()
    _broker_gone(eager_celery, monkeypatch)
    start = threading.Barrier(4)
    results: list[int] = []

    def sender() -> None:
        try:
            start.wait()
            results.append(wallet_credits_send(limit=5))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=sender) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sum(results) == 16
    credits = wallet.calls_named("credit")
    assert len(credits) == 16 and len({c.body["transaction_id"] for c in credits}) == 16
    assert not any(c.repeat for c in credits)
    assert WalletCallAttempt.objects.filter(call__kind="credit").count() == 16
    _books_match(wallet)


def test_a_batch_records_each_answer_as_it_came(seamless, table, monkeypatch):
    _partner, api, wallet = seamless
    _resolved_rounds_unsettled(api, table, monkeypatch, count=8)
    wallet.fail(Fault.ERROR_500, calls={"credit"}, times=3)
    rounds_settle_due()
    pending = list(WalletCall.objects.filter(kind="credit", status="pending"))
    assert len(pending) == 3 and all(c.attempts == 1 and c.last_status_code == 500 for c in pending)
    assert Round.objects.filter(status=RoundStatus.RESOLVED).count() == 3
    assert Round.objects.filter(status=RoundStatus.SETTLED).count() == 5
    assert retries_due_now() == 3
    assert WalletCall.objects.filter(kind="credit", status="acknowledged").count() == 8
    _books_match(wallet)
