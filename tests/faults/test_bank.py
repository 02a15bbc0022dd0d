"""Jepsen's bank test, in spirit: the whole service under load while its parts fail.

Gunicorn, a Celery worker and beat run as in production, on a Redis server of the test's own (so
it can be stopped) and the test's PostgreSQL database. Players place rounds and decide, a partner
moves money in and out, a seamless partner's player plays from its partner's wallet (a real one,
tests/wallet_server.py), every request retried under its Idempotency-Key until it gets an answer.
Meanwhile the worker is SIGKILLed, Redis is stopped (three times, 10 s each: killed, frozen,
killed), a gunicorn worker is killed and the app's PostgreSQL backends are terminated. Then, once
everything has healed: no 5xx outside the instant a process died, every acknowledged round exists
once and is settled once (a seamless round's credit paid once), every key moved money once, the
money adds up to the cent (at the partner's wallet too), no wallet
went below zero, `ledger_verify` is clean and wallet lines chain. It prints how long each fault
took to heal (docs/RELIABILITY.md keeps the figures).
"""

from __future__ import annotations

import itertools
import os
import signal
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass

import psycopg
import pytest
from django.db import connection
from django.db.models import Sum

from accounts.models import Partner, Transfer, TransferDirection
from accounts.partners import partner_player_upsert, partner_transfer
from accounts.services import partner_create
from accounts.tokens import token_issue
from casino.models import Round, RoundStatus, WalletCall
from ledger.models import Account, AccountKind, JournalEntry, Posting
from ledger.services import Actor, wallet_deposit
from ledger.verification import ledger_verify
from tests.factories import TableFactory, make_player
from tests.faults.clients import Api, Ledger, play, transfer
from tests.faults.cluster import APP_NAME, Cluster
from tests.wallet_server import PartnerWallet

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

PLAYERS = 4
PARTNER_PLAYERS = 2
SEAMLESS_SECRET = "bank-seamless-secret"
FUNDING = 200_000
REDIS_DOWN_S = 10
DEATH_WINDOW_S = 3  # answers this close after a process was killed may be 5xx (its requests died with it)
HEAL_WITHIN_S = 60


@dataclass
class Heal:
    fault: str
    seconds: float
    note: str = ""


@pytest.fixture
def seamless_wallet():
    with PartnerWallet(secret=SEAMLESS_SECRET, initial_balance=FUNDING) as wallet:
        yield wallet


@pytest.fixture
def cluster():
    running = Cluster.create()
    try:
        yield running
    finally:
        running.stop()


def wait_for(condition, *, within: float, what: str, every: float = 0.2):
    deadline = time.monotonic() + within
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {within} s")
        time.sleep(every)


def terminate_app_backends() -> int:
    """Terminate the app's backends (known by their application_name); how many were terminated."""
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"], autocommit=True
    ) as admin:
        return admin.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = %s AND datname = current_database()",
            [APP_NAME],
        ).fetchone()[0]


def redis_answers(port: int) -> bool:
    """Whether a Redis server answers PING on this port within half a second."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_money_holds_while_the_parts_of_the_service_fail(cluster, seamless_wallet, outbound_private, capsys):
    table = TableFactory(
        name="Faults EUR", min_bet=100, max_bet=10_000, bet_step=100, max_tie_bet=0, decision_timeout_s=3
    )
    ledger = Ledger()
    players = [make_player(username=f"bank-{i}") for i in range(PLAYERS + 1)]  # the last one probes
    for player in players:
        wallet_deposit(
            player=player, amount=FUNDING, idempotency_key=f"bank-funding:{player.pk}", actor=Actor.system("t")
        )
    partner, secret = partner_create(name="Bank Casino")
    partner_players = [
        partner_player_upsert(partner=partner, external_id=f"bank-p{i}", currency="EUR")[0]
        for i in range(PARTNER_PLAYERS)
    ]
    for player in partner_players:
        partner_transfer(
            partner=partner,
            player=player,
            direction=TransferDirection.IN,
            amount=FUNDING,
            reference=f"opening-{player.external_id}",
        )
    seamless, _ = partner_create(name="Bank Seamless Casino", wallet_url=seamless_wallet.url)
    Partner.objects.filter(pk=seamless.pk).update(secret=SEAMLESS_SECRET)
    seamless_player = partner_player_upsert(partner=seamless, external_id="bank-s0", currency="EUR")[0]
    tokens = [token_issue(user=p.user) for p in players]
    connection.close()  # the test's own connection is idle from here on

    cluster.start()
    wait_for(lambda: cluster.log_tail("worker").count("ready."), within=90, what="the Celery worker started")
    probe_api = Api(cluster.base_url, ledger, token=tokens[-1])
    wait_for(lambda: probe_api.once("GET", "/healthz/ready").status == 200, within=60, what="gunicorn answered")

    stop = threading.Event()
    partner_api = Api(cluster.base_url, ledger, partner=(partner.key_id, secret))
    threads = (
        [
            threading.Thread(
                target=play,
                args=(Api(cluster.base_url, ledger, token=tokens[i]), ledger),
                kwargs={"prefix": "/api/v1", "table_id": table.pk, "stop": stop, "seed": i},
            )
            for i in range(PLAYERS)
        ]
        + [
            threading.Thread(
                target=play,
                args=(partner_api, ledger),
                kwargs={
                    "prefix": f"/api/v1/partner/players/bank-p{i}",
                    "table_id": table.pk,
                    "stop": stop,
                    "seed": 100 + i,
                },
            )
            for i in range(PARTNER_PLAYERS)
        ]
        + [
            threading.Thread(
                target=play,
                args=(Api(cluster.base_url, ledger, partner=(seamless.key_id, SEAMLESS_SECRET)), ledger),
                kwargs={"prefix": "/api/v1/partner/players/bank-s0", "table_id": table.pk, "stop": stop, "seed": 300},
            )
        ]
        + [
            threading.Thread(
                target=transfer,
                args=(partner_api, ledger),
                kwargs={"external_id": f"bank-p{i}", "stop": stop, "seed": 200 + i},
            )
            for i in range(PARTNER_PLAYERS)
        ]
    )
    for thread in threads:
        thread.start()

    def probe_settled(since: float) -> float:
        """Place a round and wait until it is settled: the whole path works again."""
        placed = probe_api.definitive(
            "POST", "/api/v1/rounds/", {"table": str(table.pk), "main_bet": 100}, key=f"probe-{time.monotonic_ns()}"
        )
        assert placed.status == 201, placed
        with ledger.lock:
            ledger.rounds[placed.body["id"]] = placed.body
        if placed.body["status"] == "awaiting_decision":
            probe_api.definitive(
                "POST",
                f"/api/v1/rounds/{placed.body['id']}/decision/",
                {"action": "surrender"},
                key=f"probe-decide-{time.monotonic_ns()}",
            )
        try:
            wait_for(
                lambda: probe_api.once("GET", f"/api/v1/rounds/{placed.body['id']}/").body.get("status") == "settled",
                within=HEAL_WITHIN_S,
                what="a round placed after the fault settled",
            )
        except AssertionError as unsettled:
            # Which part did not heal is in the logs of the processes that settle: show them.
            logs = "\n".join(f"--- {name}.log\n{cluster.log_tail(name)}" for name in ("worker", "beat"))
            raise AssertionError(f"{unsettled}\n{logs}") from None
        return time.monotonic() - since

    heals: list[Heal] = []
    proofs: Counter[str] = Counter()  # each fault, counted where it could be seen to have happened
    deaths: list[float] = []  # when a process that served requests was killed
    outages: list[tuple[float, float]] = []
    degraded_answers = []
    try:
        time.sleep(5)

        worker_pid, worker_starts = cluster.pid("worker"), cluster.starts("worker")
        killed = cluster.kill("worker")
        wait_for(lambda: process_gone(worker_pid), within=10, what="the worker was killed")
        wait_for(lambda: cluster.starts("worker") > worker_starts, within=10, what="the worker was started again")
        proofs["worker killed and started again"] += 1
        heals.append(Heal("Celery worker SIGKILLed (restarted after 1 s)", probe_settled(killed)))

        for number, how in enumerate(("killed", "frozen (SIGSTOP)", "killed"), start=1):
            time.sleep(3)
            began = time.monotonic()
            cluster.redis.freeze() if how.startswith("frozen") else cluster.redis.stop()
            time.sleep(REDIS_DOWN_S / 2)
            proofs["Redis outages (Redis did not answer)"] += not redis_answers(cluster.redis.port)
            degraded_answers.append(probe_api.once("GET", "/healthz/ready"))
            time.sleep(REDIS_DOWN_S / 2)
            cluster.redis.thaw() if how.startswith("frozen") else cluster.redis.start()
            back = time.monotonic()
            outages.append((began, back))
            heals.append(Heal(f"Redis {how} for {REDIS_DOWN_S} s (outage {number})", probe_settled(back)))

        time.sleep(3)
        victim = cluster.web_workers()[0]
        killed = time.monotonic()
        deaths.append(killed)
        os.kill(victim, signal.SIGKILL)
        wait_for(
            lambda: len(cluster.web_workers()) == 2 and victim not in cluster.web_workers(),
            within=HEAL_WITHIN_S,
            what="gunicorn replaced its worker",
        )
        proofs["gunicorn workers killed"] += process_gone(victim)
        heals.append(Heal("a gunicorn worker SIGKILLed", probe_settled(killed)))

        time.sleep(3)
        deaths.append(time.monotonic())
        terminated_at = time.monotonic()
        terminated = terminate_app_backends()
        proofs["the app's PostgreSQL backends terminated"] += terminated
        heals.append(
            Heal("the app's PostgreSQL backends terminated", probe_settled(terminated_at), f"{terminated} backends")
        )
        time.sleep(3)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=180)

    # Recovery: every round decided (by a player or the house rule) and settled.
    stopped = time.monotonic()
    wait_for(
        lambda: not Round.objects.exclude(status=RoundStatus.SETTLED).exists(),
        within=HEAL_WITHIN_S,
        what="every round settled",
    )
    heals.append(Heal("backlog: every round decided and settled after the load stopped", time.monotonic() - stopped))
    cluster.stop()
    connection.close()

    # Every fault happened (a fault that misses its target proves nothing about surviving it).
    assert proofs == {
        "worker killed and started again": 1,
        "Redis outages (Redis did not answer)": 3,
        "gunicorn workers killed": 1,
        "the app's PostgreSQL backends terminated": proofs["the app's PostgreSQL backends terminated"],
    }, proofs
    assert proofs["the app's PostgreSQL backends terminated"] >= 2, (
        "no backend of the app was terminated"
    )  # web, worker

    # No 5xx outside the instant a process died; every 5xx is problem+json with a request id.
    server_errors = [a for a in ledger.answers if a.status is not None and a.status >= 500]
    for answer in server_errors:
        assert isinstance(answer.body, dict) and answer.body.get("request_id") == answer.request_id, answer
        assert any(death - 1 <= answer.at <= death + DEATH_WINDOW_S for death in deaths), answer
    during_outages = [a for a in ledger.answers if any(began <= a.at <= back for began, back in outages)]
    assert during_outages and all(a.status is not None and a.status < 500 for a in during_outages)
    placed_during_outages = sum(1 for a in during_outages if a.path.endswith("/rounds/") and a.status == 201)
    assert placed_during_outages > 0
    assert all(a.status == 200 and a.body["status"] == "degraded" for a in degraded_answers), degraded_answers

    # Every acknowledged round exists once and was staked and settled once; nothing else was placed.
    rounds = {str(r.id): r for r in Round.objects.all()}
    assert set(rounds) == set(ledger.rounds)
    stakes = JournalEntry.objects.filter(idempotency_key__regex=r"^round:.*:stake$").count()
    settlements = JournalEntry.objects.filter(idempotency_key__regex=r"^round:.*:settle$").count()
    assert stakes == settlements == len(rounds)

    # Every transfer key moved money once (the reference is the key); some keys were sent many times.
    transfers = list(Transfer.objects.exclude(reference__startswith="opening-"))
    assert Counter(t.reference for t in transfers) == Counter(list(ledger.transfers))
    assert {str(t.id) for t in transfers} == {acknowledged["id"] for acknowledged in ledger.transfers.values()}
    retried_keys = sum(1 for count in Counter(a.key for a in ledger.answers if a.key).values() if count > 1)

    # The seamless partner's wallet: each of its rounds debited and credited once, its balance what
    # the rounds say; our books hold nothing of its player's money.
    seamless_rounds = [r for r in rounds.values() if r.seamless]
    assert seamless_rounds
    seamless_net = sum(r.payout - r.main_bet - r.tie_bet - r.raise_bet for r in seamless_rounds)
    assert seamless_wallet.balance(player="bank-s0", currency="EUR") == FUNDING + seamless_net
    credits = WalletCall.objects.filter(kind="credit")
    assert credits.count() == len(seamless_rounds) and not credits.exclude(status="acknowledged").exists()
    assert not WalletCall.objects.filter(status="pending").exists()
    assert Account.objects.filter(player=seamless_player).exclude(balance=0).count() == 0
    seamless_account = Account.objects.filter(kind=AccountKind.PARTNER_SEAMLESS).aggregate(total=Sum("balance"))
    assert seamless_account["total"] == seamless_net

    # The money adds up to the cent, and no wallet ever went below zero.
    net_of_rounds = sum(r.payout - r.main_bet - r.tie_bet - r.raise_bet for r in rounds.values() if not r.seamless)
    moved_in = sum(t.amount for t in transfers if t.direction == "in")
    moved_out = sum(t.amount for t in transfers if t.direction == "out")
    player_kinds = (AccountKind.PLAYER_WALLET, AccountKind.PLAYER_IN_PLAY)
    held_by_players = Account.objects.filter(kind__in=player_kinds).aggregate(total=Sum("balance"))["total"]
    funded = FUNDING * (len(players) + len(partner_players))
    assert held_by_players == funded + moved_in - moved_out + net_of_rounds
    assert Account.objects.filter(kind=AccountKind.PLAYER_IN_PLAY).exclude(balance=0).count() == 0
    house = Account.objects.filter(kind=AccountKind.HOUSE).aggregate(total=Sum("balance"))["total"]
    assert house == -(net_of_rounds + seamless_net)
    assert not Posting.objects.filter(account__kind__in=player_kinds, balance_after__lt=0).exists()
    verification = ledger_verify()
    assert verification.ok, verification.summary

    # Wallet lines chain, as the API lists them.
    for player in players + partner_players:
        lines = [
            (line.signed_amount, line.balance_after)
            for line in Posting.objects.filter(
                account__player=player, account__kind=AccountKind.PLAYER_WALLET
            ).order_by("-id")
        ]
        for (amount, after), (_, older_after) in itertools.pairwise(lines):
            assert after - amount == older_after

    # The worker rode out every Redis outage: it exited only when the test killed it.
    unexpected = [e for e in cluster.exits if not e.expected]
    assert not unexpected, "\n\n".join(f"{e.name} exited {e.returncode}:\n{e.log_tail}" for e in unexpected)

    with capsys.disabled():
        print(
            f"\n\nfault suite: {len(rounds)} rounds ({len(seamless_rounds)} seamless), {len(transfers)} transfers, {len(ledger.answers)} requests "
            f"({sum(a.status is None for a in ledger.answers)} without an answer, {len(server_errors)} 5xx while a "
            f"process died, {retried_keys} keys retried, {placed_during_outages} rounds placed while Redis was down)"
        )
        for heal in heals:
            print(f"  {heal.seconds:6.1f} s  {heal.fault}{f' ({heal.note})' if heal.note else ''}")
