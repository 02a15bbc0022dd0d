"""Seamless-wallet partners (API.md "Seamless wallet"), end to end against a real partner wallet
(tests/wallet_server.py, an HTTP server on this machine): every row of the contract's table,
debits that time out or whose answer is lost, retries, credits through an outage, concurrency.

Transactional tests: the service calls the wallet with no transaction open and commits between
the steps, as in production; side effects after commit (settlement, credits, rollbacks) run
in-process (eager Celery)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from datetime import timedelta
from io import StringIO

import psycopg
import pytest
from django.core.management import call_command
from django.db import OperationalError, connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import casino.api.rounds
import casino.services.seamless
from accounts.models import Partner, Player
from casino.models import Round, RoundStatus, WalletCall
from casino.services import wallets
from casino.services.rounds import rounds_decide_timed_out
from casino.services.seamless import _raise_claim, _stake_claim
from casino.services.settlement import rounds_settle_due
from casino.services.wallets import (
    CALL_LEASE_S,
    DEBIT_LEASE_S,
    wallet_call_send,
    wallet_calls_send_due,
    wallet_debit_send,
)
from core.actors import Actor
from core.models import AuditEvent
from ledger.models import Account, AccountKind, JournalEntry
from ledger.verification import ledger_verify
from protection.models import ExclusionKind
from protection.services import exclusion_start
from tests.casino.helpers import PartnerClient, set_next_round, sign
from tests.casino.seamless import (
    BASE,
    PLAYER,
    SECRET,
    calls_named,
    debits_given_up_now,
    in_threads,
    place,
    retries_due_now,
)
from tests.databases import advisory_locks_held
from tests.wallet_server import Fault, PartnerWallet

pytestmark = pytest.mark.django_db(transaction=True)


def _player() -> Player:
    return Player.objects.select_related("partner").get(external_id=PLAYER)


def _books_whole() -> None:
    run = ledger_verify(triggered_by="test")
    assert run.ok, run.summary
    wallet_account = Account.objects.get(kind=AccountKind.PLAYER_WALLET, player=_player())
    assert wallet_account.balance == 0  # a seamless player's money is never left at us


def _seamless_account() -> int:
    account = Account.objects.filter(kind=AccountKind.PARTNER_SEAMLESS).first()
    return 0 if account is None else account.balance


# --- balance, transfers -----------------------------------------------------------------------------


def test_the_wallet_is_the_partners_balance_beside_our_money_in_play(seamless):
    _partner, api, wallet = seamless
    answer = api.get(f"{BASE}/{PLAYER}/wallet/")
    assert answer.status_code == 200
    assert answer.json() == {"currency": "EUR", "balance": 100_000, "in_play": 0}
    balance_call = calls_named(wallet, "balance")[-1]
    assert balance_call.body == {"player": PLAYER, "currency": "EUR"}
    assert balance_call.status == 200


def test_a_wallet_that_cannot_tell_the_balance_is_503_wallet_unavailable(seamless):
    _partner, api, wallet = seamless
    wallet.fail(Fault.ERROR_500, calls={"balance"}, times=1)
    answer = api.get(f"{BASE}/{PLAYER}/wallet/")
    assert answer.status_code == 503
    assert answer.json()["code"] == "wallet_unavailable"
    assert answer["Content-Type"].startswith("application/problem+json")


def test_transfers_are_refused_for_a_seamless_partner(seamless):
    _partner, api, _wallet = seamless
    answer = api.post(
        f"{BASE}/{PLAYER}/transfers/",
        {"direction": "in", "amount": 1_000, "reference": "r-1"},
        HTTP_IDEMPOTENCY_KEY="t-1",
    )
    assert answer.status_code == 422
    assert answer.json()["code"] == "not_a_transfer_wallet"
    assert not JournalEntry.objects.exists()


# --- debit: placed only after a 200 -------------------------------------------------------------


def test_a_round_is_debited_placed_settled_and_credited(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=True)
    answer = place(api, key="r-1", table=table)
    assert answer.status_code == 201, answer.content
    round_ = answer.json()
    debit = calls_named(wallet, "debit")[0]
    assert debit.body == {
        "transaction_id": f"{uuid.UUID(round_['id']).hex}-stake",
        "player": PLAYER,
        "currency": "EUR",
        "amount": 1_000,
        "round": round_["id"],
        "kind": "stake",
    }
    assert debit.headers["x-nonce"] == debit.body["transaction_id"]
    credit = calls_named(wallet, "credit")[0]
    assert credit.body == {
        "transaction_id": f"{uuid.UUID(round_['id']).hex}-payout",
        "player": PLAYER,
        "currency": "EUR",
        "amount": 2_000,
        "round": round_["id"],
        "kind": "payout",
    }
    assert wallet.balance(player=PLAYER, currency="EUR") == 101_000
    settled = api.get(f"{BASE}/{PLAYER}/rounds/{round_['id']}/").json()
    assert settled["status"] == "settled" and settled["settled_at"] is not None
    assert _seamless_account() == 1_000  # the house paid 1,000 more than it took, through the partner
    _books_whole()


def test_a_lost_round_is_credited_zero_so_the_partner_can_close_it(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=False)
    round_id = place(api, key="r-1", table=table).json()["id"]
    assert calls_named(wallet, "credit")[0].body["amount"] == 0
    assert wallet.balance(player=PLAYER, currency="EUR") == 99_000
    assert Round.objects.get(pk=round_id).status == RoundStatus.SETTLED
    _books_whole()


def test_insufficient_funds_at_the_partner_refuses_the_round(seamless, table):
    _partner, api, wallet = seamless
    wallet.set_balance(player=PLAYER, currency="EUR", amount=500)
    answer = place(api, key="r-1", table=table)
    assert answer.status_code == 422
    assert answer.json()["code"] == "insufficient_funds"
    assert not Round.objects.exists()
    assert WalletCall.objects.get().status == "refused"
    assert not calls_named(wallet, "rollback")
    assert wallet.balance(player=PLAYER, currency="EUR") == 500


@pytest.mark.parametrize("fault", [Fault.ERROR_500, Fault.DROP])
def test_a_failed_debit_is_503_and_rolled_back(seamless, table, fault):
    _partner, api, wallet = seamless
    wallet.fail(fault, calls={"debit"}, times=1)
    answer = place(api, key="r-1", table=table)
    assert answer.status_code == 503
    assert answer.json()["code"] == "wallet_unavailable"
    # The wallet may have answered (a 500): the problem says no usable answer came, not none.
    assert answer.json()["title"] == "The partner's wallet gave no usable answer in time; nothing was staked."
    assert answer["Retry-After"]
    assert not Round.objects.exists()
    debit = WalletCall.objects.get(kind="debit")
    rollback = WalletCall.objects.get(kind="rollback")
    assert debit.status == "failed" and rollback.status == "acknowledged"
    assert rollback.request_body == {
        "transaction_id": f"{debit.transaction_id}-rb",
        "reference": debit.transaction_id,
        "player": PLAYER,
        "currency": "EUR",
        "amount": debit.amount,
        "round": str(debit.round_id),
    }
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000
    assert not JournalEntry.objects.exists()


def test_a_debit_that_timed_out_but_happened_is_rolled_back_and_the_balance_ends_right(seamless, table):
    _partner, api, wallet = seamless
    wallet.fail(Fault.TIMEOUT, calls={"debit"}, times=1, seconds=2)
    started = time.monotonic()
    answer = place(api, key="r-1", table=table)
    assert answer.status_code == 503 and answer.json()["code"] == "wallet_unavailable"
    assert time.monotonic() - started < 1.9  # our timeout (1 s here), not the wallet's 2 s
    # The rollback followed at once, maybe before the wallet applied the late debit: a debit arriving
    # after the rollback of its id takes no money (API.md), so the balance is right either way.
    assert WalletCall.objects.get(kind="rollback").status == "acknowledged"
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000
    assert wallet.wait_for(lambda: len(calls_named(wallet, "debit")) == 1, timeout=10)
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000
    assert not Round.objects.exists()


def test_a_debit_applied_whose_answer_was_lost_is_rolled_back(seamless, table):
    _partner, api, wallet = seamless
    wallet.fail(Fault.APPLY_THEN_DROP, calls={"debit"}, times=1)
    answer = place(api, key="r-1", table=table)
    assert answer.status_code == 503
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000  # debited, then rolled back
    assert WalletCall.objects.get(kind="rollback").status == "acknowledged"


def test_reconciliation_meets_the_partners_books_when_debits_go_unanswered(seamless, table):
    """docs/PARTNERS.md "Reconciliation": a debit answered 200 in time, one the wallet applied but
    answered after our timeout, one lost before the wallet saw it. The report's `debits` are the
    first; `unanswered_debits` name the other two, whose rollbacks `rollbacks` counts; the
    partner's own books meet them by the rule the guide gives."""
    partner, api, wallet = seamless
    assert place(api, key="r-answered", table=table, main_bet=1_000).status_code == 201
    wallet.fail(Fault.TIMEOUT, calls={"debit"}, times=1, seconds=2)  # applied; its 200 comes too late
    assert place(api, key="r-late", table=table, main_bet=2_000).status_code == 503
    wallet.fail(Fault.DROP, calls={"debit"}, times=1)  # never applied
    assert place(api, key="r-lost", table=table, main_bet=4_000).status_code == 503
    assert wallet.wait_for(lambda: all(c.status is not None for c in calls_named(wallet, "debit")[1:2]), timeout=10)
    out = StringIO()
    call_command(
        "partner_reconcile", "--partner", partner.name, "--date", timezone.now().date().isoformat(), stdout=out
    )
    report = json.loads(out.getvalue())
    late, lost = (WalletCall.objects.get(kind="debit", amount=amount).transaction_id for amount in (2_000, 4_000))
    assert report["debits"] == {"count": 1, "total": 1_000}
    assert report["unanswered_debits"] == {"count": 2, "total": 6_000, "transaction_ids": [late, lost]}
    assert report["rollbacks"] == {"count": 2, "total": 6_000} and report["pending"] == []

    # The partner's books: the debits it answered 200 (whenever), and what its calls moved.
    answered = {c.body["transaction_id"]: c.body["amount"] for c in calls_named(wallet, "debit") if c.status == 200}
    # Rule 1: your debits answered 200 = `debits` + those of `unanswered_debits` you applied.
    unanswered = report["unanswered_debits"]["transaction_ids"]
    applied_late = sum(amount for transaction_id, amount in answered.items() if transaction_id in unanswered)
    assert sum(answered.values()) == report["debits"]["total"] + applied_late == 3_000
    # Rule 2: staked at your wallet, net = `debits.total` - (`rollbacks.total` - `unanswered_debits.total`).
    moved = sum(c.moved for c in wallet.calls if c.name in ("debit", "rollback"))
    net = report["debits"]["total"] - (report["rollbacks"]["total"] - report["unanswered_debits"]["total"])
    assert -moved == net == 1_000


def test_a_retry_with_the_same_key_never_debits_twice(seamless, table):
    _partner, api, wallet = seamless
    first = place(api, key="same", table=table)
    again = place(api, key="same", table=table)
    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert len(calls_named(wallet, "debit")) == 1
    assert Round.objects.count() == 1


def test_a_503_is_the_requests_answer_and_its_retry_gets_it_again(seamless, table):
    _partner, api, wallet = seamless
    wallet.fail(Fault.ERROR_500, calls={"debit"}, times=1)
    first = place(api, key="same", table=table)
    again = place(api, key="same", table=table)
    assert first.status_code == again.status_code == 503
    assert len(calls_named(wallet, "debit")) == 1
    # API.md: the first answer's bytes and headers, Retry-After and the first request id included.
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    assert again["Retry-After"] == first["Retry-After"] == "5"
    assert again["X-Request-ID"] == first["X-Request-ID"] == first.json()["request_id"] == again.json()["request_id"]
    assert again["X-Replay-Request-ID"] != first["X-Request-ID"]


def test_a_retry_after_the_first_request_died_repeats_the_same_debit(seamless, table):
    """The first request's process died after the partner debited (nothing stored at us but the
    pending debit): its retry sends the same transaction id, the partner answers it with its first
    result without moving money again, and the round is placed under the debit's round id."""
    partner, api, wallet = seamless
    body = f'{{"table": {table.pk}, "main_bet": 1000, "tie_bet": 0}}'.encode()
    request_hash = _hash_of(f"{BASE}/{PLAYER}/rounds/", body)
    died = _stake_claim(
        player=_player(), amount=1_000, scope=f"partner:{partner.pk}", key="k-died", request_hash=request_hash
    )
    assert wallet_debit_send(call=died).status_code == 200  # the partner took it; our process died here
    WalletCall.objects.filter(pk=died.pk).update(next_attempt_at=died.created_at)  # its lease is over
    answer = api.client.post(
        f"{BASE}/{PLAYER}/rounds/",
        data=body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k-died",
        **_signed(partner, "POST", f"{BASE}/{PLAYER}/rounds/", body),
    )
    assert answer.status_code == 201, answer.content
    assert answer.json()["id"] == str(died.round_id)
    debits = calls_named(wallet, "debit")
    assert [c.body["transaction_id"] for c in debits] == [died.transaction_id] * 2
    assert [c.repeat for c in debits] == [False, True]  # the second answered from the first: money moved once
    assert sum(c.moved for c in debits) == -1_000
    _books_whole()


def test_a_retry_right_after_the_first_request_died_continues_its_debit_at_once(seamless, table):
    """Issue #33 item 4: a retry came back `409 idempotency_in_flight` until the dead request's 30 s
    lease ran out. Now it sends the same debit again at once and acts on the partner's answer."""
    partner, api, wallet = seamless
    body = f'{{"table": {table.pk}, "main_bet": 1000, "tie_bet": 0}}'.encode()
    request_hash = _hash_of(f"{BASE}/{PLAYER}/rounds/", body)
    died = _stake_claim(
        player=_player(), amount=1_000, scope=f"partner:{partner.pk}", key="k-fresh", request_hash=request_hash
    )
    assert wallet_debit_send(call=died).status_code == 200  # the partner took it; our process died here
    assert WalletCall.objects.get(pk=died.pk).next_attempt_at > timezone.now()  # its lease still runs
    started = time.monotonic()
    answer = api.client.post(
        f"{BASE}/{PLAYER}/rounds/",
        data=body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k-fresh",
        **_signed(partner, "POST", f"{BASE}/{PLAYER}/rounds/", body),
    )
    assert answer.status_code == 201, answer.content
    assert time.monotonic() - started < 3
    assert answer.json()["id"] == str(died.round_id)
    debits = calls_named(wallet, "debit")
    assert [c.body["transaction_id"] for c in debits] == [died.transaction_id] * 2
    assert sum(c.moved for c in debits) == -1_000
    _books_whole()


def test_a_retry_after_a_database_failure_past_the_debit_places_the_round_at_once(seamless, table, monkeypatch):
    """The partner debited, then our database failed in the transaction that places the round (a
    503 `service_unavailable`, nothing stored): the retry with the same key places it at once."""
    _partner, api, wallet = seamless
    real = casino.api.rounds.seamless_round_place

    def database_gone(**kwargs):
        raise OperationalError("the connection to the server was lost")

    monkeypatch.setattr(casino.api.rounds, "seamless_round_place", database_gone)
    failed = place(api, key="k-db", table=table)
    assert failed.status_code == 503 and failed.json()["code"] == "service_unavailable"
    assert WalletCall.objects.get(kind="debit").status == "pending"  # the debit's fate is the retry's to settle
    monkeypatch.setattr(casino.api.rounds, "seamless_round_place", real)
    retried = place(api, key="k-db", table=table)
    assert retried.status_code == 201, retried.content
    assert WalletCall.objects.get(kind="debit").status == "acknowledged"
    assert sum(c.moved for c in calls_named(wallet, "debit")) == -1_000  # debited once
    _books_whole()


def test_a_war_retried_after_its_request_died_continues_the_same_raise_debit(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=True, player_wins=True)
    round_ = place(api, key="r-1", table=table).json()
    died = _raise_claim(player=_player(), round_id=round_["id"])  # a decision's request, which then died
    assert wallet_debit_send(call=died).status_code == 200
    answer = api.post(
        f"{BASE}/{PLAYER}/rounds/{round_['id']}/decision/", {"action": "war"}, HTTP_IDEMPOTENCY_KEY="d-again"
    )
    assert answer.status_code == 200, answer.content
    raises = [c for c in calls_named(wallet, "debit") if c.body["kind"] == "raise"]
    assert {c.body["transaction_id"] for c in raises} == {f"{uuid.UUID(round_['id']).hex}-raise"}
    assert sum(c.moved for c in raises) == -1_000
    _books_whole()


def test_a_debit_left_pending_by_a_dead_request_is_rolled_back_by_the_sweeper(seamless, table):
    partner, _api, wallet = seamless
    died = _stake_claim(player=_player(), amount=1_000, scope=f"partner:{partner.pk}", key="k", request_hash="h")
    wallet_debit_send(call=died)
    assert wallet.balance(player=PLAYER, currency="EUR") == 99_000
    assert debits_given_up_now() >= 1
    assert WalletCall.objects.get(pk=died.pk).status == "failed"
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000


def test_no_transaction_is_open_while_the_wallet_is_being_called(seamless, table, settings):
    """While the partner's wallet takes its time (a second here), none of the service's
    connections is inside a transaction, as PostgreSQL itself sees them: no row lock is held and
    nothing waits on the partner."""
    partner, _api, _ = seamless
    settings.WALLET_TIMEOUT_S = 3.0
    with PartnerWallet(secret=SECRET, latency_s=1.0) as slow:
        slow.set_balance(player=PLAYER, currency="EUR", amount=100_000)
        Partner.objects.filter(pk=partner.pk).update(wallet_url=slow.url)
        outcome = {}

        def request() -> None:
            try:
                outcome["answer"] = place(PartnerClient(Client(), partner, SECRET), key="slow", table=table)
            finally:
                connections.close_all()

        thread = threading.Thread(target=request)
        thread.start()
        assert slow.wait_for(lambda: thread.is_alive() and _others_states(), timeout=5)
        time.sleep(0.4)  # the checks and the claim take milliseconds: the debit is on its way now
        states = [state for _ in range(5) for state in (_others_states(), time.sleep(0.05))[0]]
        thread.join(10)
    assert outcome["answer"].status_code == 201
    assert states and "idle in transaction" not in states, states


def _others_states() -> list[str]:
    """The states of the test database's other connections (the request's)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT state FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
        return [state for (state,) in cursor.fetchall()]


def test_placing_a_seamless_round_stays_within_its_statement_budget(seamless, table):
    """docs/BENCHMARKS.md (issue 34): three statements, each committing alone (no BEGIN, no
    COMMIT). Before the wallet's call: the Idempotency-Key's claim (the nonce recorded with it) with
    what the checks and the round read (the seed pair read without its lock), then the pending debit
    and its audit event; after the call, on what the first read: the nonce counted, the debit
    acknowledged, the round written, its funding and stake posted and the answer stored. No
    savepoint, no advisory lock left. (Without a broker, as here, the round then settles in a
    transaction of its own.)"""
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=True)
    assert place(api, key="warm", table=table).status_code == 201  # the seed pair exists from here on
    set_next_round(_player(), tie=False, player_wins=True)
    with CaptureQueriesContext(connection) as statements:
        answer = place(api, key="counted", table=table)
    assert answer.status_code == 201, answer.content
    sql = [q["sql"] for q in statements.captured_queries]
    assert [q.split(" ", 1)[0] for q in sql[: [q.split(" ", 1)[0] for q in sql].index("BEGIN")]] == ["SELECT"] * 3
    assert "core_idempotency_claim" in sql[0] and "casino_walletcall" in sql[0] and "FOR UPDATE" not in sql[0]
    assert sql[1].startswith("SELECT casino_wallet_debit_create(")
    assert sql[2].startswith("SELECT casino_round_place(") and "core_idempotency_store" in sql[2]
    assert not [q for q in sql if "SAVEPOINT" in q or "pg_advisory_unlock" in q]
    assert advisory_locks_held() == 0
    # What the folded statements wrote is what the ORM wrote before them.
    debit = WalletCall.objects.get(kind="debit", round_id=answer.json()["id"])
    assert debit.status == "acknowledged" and debit.attempts == 1 and debit.last_status_code == 200
    assert debit.last_error == "" and debit.partner_balance == 100_000 - 2 * 1_000 + 2_000
    assert json.loads(debit.last_answer)["balance"] == debit.partner_balance
    assert debit.answered_at is not None and debit.latency_ms is not None
    assert debit.request_scope == f"partner:{_partner.pk}" and debit.request_key == "counted"
    assert [(a.status_code, a.error) for a in debit.attempt_log.all()] == [(200, "")]
    events = AuditEvent.objects.filter(object_type="wallet_call", object_id=debit.transaction_id).order_by("id")
    assert [(e.action, e.data) for e in events] == [
        ("wallet_call.created", {"kind": "debit", "purpose": "stake", "amount": 1_000, "round": str(debit.round_id)}),
        ("wallet_call.acknowledged", {"kind": "debit", "amount": 1_000, "status_code": 200}),
    ]
    assert len(calls_named(wallet, "debit")) == 2
    _books_whole()


def _while_the_wallet_answers(monkeypatch, meanwhile) -> None:
    """Run `meanwhile()` once, between step 1 of the next stake (its checks and reads, committed)
    and its placing: while the partner's wallet answers its debit."""
    real = casino.services.seamless.wallet_debit_send
    pending = [meanwhile]

    def answered_while_something_happened(*, call):
        if pending:
            pending.pop()()
        return real(call=call)

    monkeypatch.setattr(casino.services.seamless, "wallet_debit_send", answered_while_something_happened)


def _partner_wallet_matches_our_rounds(wallet) -> None:
    rounds = Round.objects.all()
    staked = sum(r.main_bet + r.tie_bet + r.raise_bet for r in rounds)
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000 - staked + sum(r.payout or 0 for r in rounds)


def test_a_round_of_the_player_placed_while_the_wallet_answers_comes_first_and_both_are_counted(
    seamless, table, monkeypatch
):
    """Step 3 places the round on step 1's read in one statement only if no other round of the
    player came in between. One that did (a second request for the same player, placed whole
    while the first one's debit is at the wallet) is found by the nonce's count: the first round
    is then placed again, in a transaction, on what is read then, with the next nonce, and checked
    against every round of the player."""
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False)  # the seed pair exists: step 1 reads it
    meanwhile = {}
    _while_the_wallet_answers(monkeypatch, lambda: meanwhile.update(answer=place(api, key="meanwhile", table=table)))
    with CaptureQueriesContext(connection) as statements:
        first = place(api, key="first", table=table)
    assert first.status_code == 201, first.content
    assert meanwhile["answer"].status_code == 201, meanwhile["answer"].content
    came_first = Round.objects.get(pk=meanwhile["answer"].json()["id"])
    placed = Round.objects.get(pk=first.json()["id"])
    assert (came_first.seed_pair_id, came_first.nonce + 1) == (placed.seed_pair_id, placed.nonce)
    assert placed.seed_pair.next_nonce == placed.nonce + 1
    # The placing statement on step 1's read found the nonce taken, wrote nothing, and the round
    # was placed again, its seed pair locked, in a transaction.
    ran = [q["sql"] for q in statements.captured_queries]
    assert sum(q.startswith("SELECT casino_round_place(") for q in ran) == 3  # the other's, ours twice
    assert any("FOR UPDATE" in q and "core_idempotency_claim" in q for q in ran)
    debits = WalletCall.objects.filter(kind="debit")
    assert sorted(d.status for d in debits) == ["acknowledged", "acknowledged"]
    assert {str(d.round_id) for d in debits} == {str(came_first.pk), str(placed.pk)}
    assert not WalletCall.objects.filter(kind="rollback").exists()
    _partner_wallet_matches_our_rounds(wallet)
    assert advisory_locks_held() == 0
    _books_whole()


def test_the_same_request_again_while_the_wallet_answers_places_one_round_debited_once(seamless, table, monkeypatch):
    """A retry of the request (same Idempotency-Key) while the first attempt's debit is at the
    wallet takes the pending debit over, sends it again (the partner answers it with its first
    result) and places the round. The first attempt's placing statement then finds the nonce
    taken, and placed again it finds the retry's answer stored: it answers that. One round, one
    debit, debited once."""
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=True)
    retry = {}
    _while_the_wallet_answers(monkeypatch, lambda: retry.update(answer=place(api, key="twice", table=table)))
    first = place(api, key="twice", table=table)
    assert retry["answer"].status_code == 201, retry["answer"].content
    assert first.status_code == 201, first.content
    assert first.json() == retry["answer"].json()
    assert first["Idempotent-Replayed"] == "true"
    assert Round.objects.count() == 1
    debit = WalletCall.objects.get(kind="debit")
    assert debit.status == "acknowledged" and str(debit.round_id) == first.json()["id"]
    assert len(calls_named(wallet, "debit")) == 2 and len(wallet.transactions) == 2  # the debit and its payout
    assert not WalletCall.objects.filter(kind="rollback").exists()
    assert wallet.balance(player=PLAYER, currency="EUR") == 101_000
    assert advisory_locks_held() == 0
    _books_whole()


def test_an_exclusion_that_starts_while_the_wallet_answers_applies_from_the_next_stake(seamless, table, monkeypatch):
    """A change that no round makes, made while the partner's wallet answers a debit (here a
    time-out the player took), does not undo the stake that was checked and debited before it
    (module docstring of casino/services/seamless.py); the next stake is refused before any debit."""
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False)
    _while_the_wallet_answers(
        monkeypatch,
        lambda: exclusion_start(player=_player(), kind=ExclusionKind.TIMEOUT, days=1, actor=Actor.system("tests")),
    )
    assert place(api, key="checked-before", table=table).status_code == 201
    after = place(api, key="after", table=table)
    assert after.status_code == 422 and after.json()["code"] == "self_excluded"
    assert len(calls_named(wallet, "debit")) == 1
    _partner_wallet_matches_our_rounds(wallet)
    _books_whole()


def test_a_debit_given_up_while_its_answer_came_refuses_the_round_and_is_rolled_back_once(seamless, table, monkeypatch):
    """The sweeper gave the debit up (its lease ran out) between the partner's 200 and the
    statement that places the round: that statement finds it no longer pending and writes nothing;
    the request is `503 wallet_unavailable`, and the debit is rolled back once (by the sweeper)."""
    _partner, api, wallet = seamless
    real = casino.services.seamless.wallet_debit_send

    def answered_then_given_up(*, call):
        answer = real(call=call)
        debits_given_up_now()  # the sweeper, meanwhile
        return answer

    monkeypatch.setattr(casino.services.seamless, "wallet_debit_send", answered_then_given_up)
    answer = place(api, key="r-given-up", table=table)
    assert answer.status_code == 503 and answer.json()["code"] == "wallet_unavailable", answer.content
    assert not Round.objects.exists()
    debit = WalletCall.objects.get(kind="debit")
    assert debit.status == "failed" and not debit.attempt_log.exists()
    assert WalletCall.objects.get(kind="rollback").status == "acknowledged"
    assert wallet.balance(player=PLAYER, currency="EUR") == 100_000
    assert not JournalEntry.objects.exists()
    monkeypatch.setattr(casino.services.seamless, "wallet_debit_send", real)
    again = place(api, key="r-given-up", table=table)
    assert again.status_code == 503 and again["Idempotent-Replayed"] == "true"
    assert len(calls_named(wallet, "debit")) == 1 and len(calls_named(wallet, "rollback")) == 1


# --- protection: ours, before the debit -----------------------------------------------------------


def test_an_excluded_player_is_refused_before_any_debit(seamless, table):
    _partner, api, wallet = seamless
    exclusion_start(player=_player(), kind=ExclusionKind.TIMEOUT, days=1, actor=Actor.system("tests"))
    answer = place(api, key="r-1", table=table)
    assert answer.status_code == 422 and answer.json()["code"] == "self_excluded"
    assert not calls_named(wallet, "debit")


def test_a_bet_off_the_table_is_refused_before_any_debit(seamless, table):
    _partner, api, wallet = seamless
    answer = place(api, key="r-1", table=table, main_bet=150)
    assert answer.status_code == 422 and answer.json()["code"] == "bet_out_of_limits"
    assert not calls_named(wallet, "debit")


# --- the war raise ---------------------------------------------------------------------------------


def test_going_to_war_debits_the_raise(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=True, player_wins=True)
    round_ = place(api, key="r-1", table=table).json()
    assert round_["status"] == "awaiting_decision"
    answer = api.post(f"{BASE}/{PLAYER}/rounds/{round_['id']}/decision/", {"action": "war"}, HTTP_IDEMPOTENCY_KEY="d-1")
    assert answer.status_code == 200, answer.content
    raise_debit = calls_named(wallet, "debit")[1]
    assert raise_debit.body["kind"] == "raise" and raise_debit.body["amount"] == 1_000
    assert raise_debit.body["transaction_id"] == f"{uuid.UUID(round_['id']).hex}-raise"
    assert Round.objects.get(pk=round_["id"]).status == RoundStatus.SETTLED
    _books_whole()


def test_a_raise_refused_for_funds_leaves_the_round_waiting_and_may_be_asked_again(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=True, player_wins=True)
    round_ = place(api, key="r-1", table=table).json()
    wallet.set_balance(player=PLAYER, currency="EUR", amount=10)
    refused = api.post(
        f"{BASE}/{PLAYER}/rounds/{round_['id']}/decision/", {"action": "war"}, HTTP_IDEMPOTENCY_KEY="d-1"
    )
    assert refused.status_code == 422 and refused.json()["code"] == "insufficient_funds"
    assert Round.objects.get(pk=round_["id"]).status == RoundStatus.AWAITING_DECISION
    wallet.set_balance(player=PLAYER, currency="EUR", amount=5_000)
    answer = api.post(f"{BASE}/{PLAYER}/rounds/{round_['id']}/decision/", {"action": "war"}, HTTP_IDEMPOTENCY_KEY="d-2")
    assert answer.status_code == 200
    assert calls_named(wallet, "debit")[-1].body["transaction_id"].endswith("-raise-2")
    _books_whole()


def test_surrender_needs_no_debit(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=True, player_wins=True)
    round_ = place(api, key="r-1", table=table).json()
    answer = api.post(
        f"{BASE}/{PLAYER}/rounds/{round_['id']}/decision/", {"action": "surrender"}, HTTP_IDEMPOTENCY_KEY="d-1"
    )
    assert answer.status_code == 200
    assert len(calls_named(wallet, "debit")) == 1
    assert calls_named(wallet, "credit")[0].body["amount"] == 500  # half the main bet back
    _books_whole()


def test_a_decision_timeout_on_a_seamless_round_surrenders(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=True, player_wins=True)
    round_id = place(api, key="r-1", table=table).json()["id"]
    Round.objects.filter(pk=round_id).update(decision_deadline=timezone.now() - timedelta(seconds=1))
    assert rounds_decide_timed_out() == 1
    assert Round.objects.get(pk=round_id).decision == "surrender"
    assert len(calls_named(wallet, "debit")) == 1


# --- credits: once, through an outage --------------------------------------------------------------


def test_a_credit_is_retried_through_an_outage_and_pays_once(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=True)
    wallet.fail(Fault.ERROR_500, calls={"credit"}, times=None)
    round_id = place(api, key="r-1", table=table).json()["id"]
    credit = WalletCall.objects.get(kind="credit")
    assert credit.status == "pending" and credit.attempts == 1
    assert Round.objects.get(pk=round_id).status == RoundStatus.RESOLVED  # until the partner acknowledges
    retries_due_now()
    wallet.fail(Fault.APPLY_THEN_DROP, calls={"credit"}, times=1)  # applied, the answer lost: sent again
    retries_due_now()
    wallet.clear_faults()
    retries_due_now()
    credit.refresh_from_db()
    assert credit.status == "acknowledged" and credit.attempts == 4
    assert wallet.balance(player=PLAYER, currency="EUR") == 101_000  # paid once
    assert Round.objects.get(pk=round_id).status == RoundStatus.SETTLED
    _books_whole()


def test_a_credit_whose_worker_died_is_sent_by_the_sweeper(seamless, table):
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=True)
    wallet.fail(Fault.DROP, calls={"credit"}, times=1)
    place(api, key="r-1", table=table)
    credit = WalletCall.objects.get(kind="credit")
    # A worker took the credit (its lease) and was killed before recording anything.
    WalletCall.objects.filter(pk=credit.pk).update(next_attempt_at=timezone.now() + timedelta(seconds=CALL_LEASE_S))
    assert wallet_calls_send_due() == 0  # leased: nobody else sends it meanwhile
    assert retries_due_now() == 1  # the lease ran out: the sweeper sends it
    assert retries_due_now() == 0
    assert wallet.balance(player=PLAYER, currency="EUR") == 101_000
    assert [c.status for c in calls_named(wallet, "credit")] == [None, 200]
    assert WalletCall.objects.get(pk=credit.pk).status == "acknowledged"


def test_a_credit_answered_while_the_database_connection_was_cut_is_recorded_at_once(seamless, table, monkeypatch):
    """The fault suite, terminating the app's backends, found a credit whose connection was cut
    while the partner answered: it waited out its 30 s lease. Its answer is now recorded on a new
    connection."""
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=True)
    wallet.fail(Fault.DROP, calls={"credit"}, times=1)
    place(api, key="r-1", table=table)
    credit = WalletCall.objects.get(kind="credit")
    WalletCall.objects.filter(pk=credit.pk).update(next_attempt_at=timezone.now())
    real_post, terminated = wallets.wallet_post, []

    def answered_then_cut(**kwargs):
        answer = real_post(**kwargs)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        db = connection.settings_dict
        with psycopg.connect(
            host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"], autocommit=True
        ) as admin:
            terminated.append(admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0])
        return answer

    monkeypatch.setattr(wallets, "wallet_post", answered_then_cut)
    assert wallet_call_send(call_id=credit.pk) is True
    assert terminated == [True]  # the fault happened
    assert WalletCall.objects.get(pk=credit.pk).status == "acknowledged"
    assert wallet.balance(player=PLAYER, currency="EUR") == 101_000


def test_the_task_of_a_credit_another_sender_holds_sends_nothing(seamless, table):
    """The credit's task and the sweeper both hold its id: whichever comes second while the other
    is attempting it (its lease) or while it backs off sends nothing."""
    _partner, api, wallet = seamless
    set_next_round(_player(), tie=False, player_wins=True)
    wallet.fail(Fault.ERROR_500, calls={"credit"}, times=1)
    place(api, key="r-1", table=table)
    credit = WalletCall.objects.get(kind="credit")
    assert credit.status == "pending" and len(calls_named(wallet, "credit")) == 1
    assert wallet_call_send(call_id=credit.pk) is False  # backing off after the 500
    WalletCall.objects.filter(pk=credit.pk).update(next_attempt_at=timezone.now() + timedelta(seconds=CALL_LEASE_S))
    assert wallet_call_send(call_id=credit.pk) is False  # leased by another sender
    assert len(calls_named(wallet, "credit")) == 1
    WalletCall.objects.filter(pk=credit.pk).update(next_attempt_at=timezone.now())
    assert wallet_call_send(call_id=credit.pk) is True
    assert [c.status for c in calls_named(wallet, "credit")] == [500, 200]
    assert wallet.balance(player=PLAYER, currency="EUR") == 101_000


# --- 50 rounds at once, the partner's wallet affording 10 ----------------------------------------------


def test_fifty_concurrent_rounds_against_a_balance_that_affords_ten(seamless, table):
    partner, _api, wallet = seamless
    wallet.set_balance(player=PLAYER, currency="EUR", amount=10_000)
    wallet.fail(Fault.ERROR_500, calls={"credit"}, times=None)  # no payout comes back meanwhile

    def work(n, client):
        return place(PartnerClient(client, partner, SECRET), key=f"c-{n}", table=table).status_code

    statuses = in_threads(50, work)
    assert statuses.count(201) == 10, statuses
    assert statuses.count(422) == 40, statuses
    assert wallet.balance(player=PLAYER, currency="EUR") == 0
    assert Round.objects.count() == 10
    wallet.clear_faults()
    # Rounds whose settlement found another batch running (50 at once, one player) are the
    # sweeper's, as in production; then every credit is sent.
    rounds_settle_due()
    retries_due_now()
    credited = sum(c.amount for c in WalletCall.objects.filter(kind="credit", status="acknowledged"))
    in_play = sum(r.main_bet + r.raise_bet for r in Round.objects.filter(status=RoundStatus.AWAITING_DECISION))
    assert wallet.balance(player=PLAYER, currency="EUR") == credited
    assert -_seamless_account() == 10_000 - credited  # what the partner paid in, less what it got back
    assert Account.objects.get(kind=AccountKind.PLAYER_IN_PLAY, player=_player()).balance == in_play
    _books_whole()


# --- operators -------------------------------------------------------------------------------------


def test_partner_create_with_a_wallet_url_makes_a_seamless_partner(wallet, capsys):
    call_command("partner_create", "--name", "Wallet Casino", "--wallet-url", wallet.url + "/")
    printed = capsys.readouterr().out
    assert set(json.loads(printed)) == {"key", "secret"}
    partner = Partner.objects.get(name="Wallet Casino")
    assert partner.is_seamless and partner.wallet_url == wallet.url


def _hash_of(path: str, body: bytes) -> str:
    return hashlib.sha256(b"POST " + path.encode() + b"\n" + body).hexdigest()


def _signed(partner, method: str, path: str, body: bytes) -> dict:
    return sign(partner, SECRET, method, path, body)


def test_debit_lease_outlives_the_wallet_timeout(settings):
    assert DEBIT_LEASE_S > 2 * settings.WALLET_TIMEOUT_S
