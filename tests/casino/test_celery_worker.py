"""A real Celery worker, in its own process, on real Redis, settles rounds (not eager mode)."""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from casino.models import Round, RoundStatus
from casino.services.rounds import round_place
from core.actors import Actor
from ledger.selectors import player_wallet_summary
from ledger.verification import ledger_verify
from tests.casino.helpers import set_next_round
from tests.databases import database_url
from tests.factories import TableFactory, make_player

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def worker(eager_celery):
    if not settings.REDIS_URL:
        pytest.skip("needs Redis")
    redis.Redis.from_url(settings.REDIS_URL).ping()
    db = connection.settings_dict
    queue = f"test-{uuid.uuid4().hex[:8]}"  # a queue of its own: no stale message from another run
    env = {
        **os.environ,
        "DATABASE_URL": database_url(db),
        "REDIS_URL": settings.REDIS_URL,
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            "solo",
            "--queues",
            queue,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel",
            "INFO",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    eager_celery.conf.task_always_eager = False
    eager_celery.conf.broker_url = settings.REDIS_URL
    # The app keeps the connection pools of the broker it first published to: an earlier test's
    # dead broker (tests/casino/services) would take this test's messages.
    eager_celery._pool = eager_celery.amqp._producer_pool = None
    previous_queue = eager_celery.conf.task_default_queue
    eager_celery.conf.task_default_queue = queue
    try:
        yield process
    finally:
        eager_celery.conf.task_default_queue = previous_queue
        eager_celery._pool = eager_celery.amqp._producer_pool = None
        process.terminate()
        try:
            output, _ = process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        print(output[-3000:])


def test_a_real_worker_settles_rounds(worker):
    table = TableFactory()
    player = make_player(balance=50_000, username="worker-test")
    placed = [
        round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player)) for _ in range(10)
    ]
    resolved = [r.id for r in placed if r.status == RoundStatus.RESOLVED]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if Round.objects.filter(id__in=resolved, status=RoundStatus.SETTLED).count() == len(resolved):
            break
        assert worker.poll() is None, "the worker died"
        time.sleep(0.2)
    assert Round.objects.filter(id__in=resolved, status=RoundStatus.SETTLED).count() == len(resolved)
    assert player_wallet_summary(player=player)["in_play"] == sum(
        r.main_bet for r in placed if r.status == RoundStatus.AWAITING_DECISION
    )
    assert ledger_verify().ok


def test_a_real_worker_keeps_a_deadline_with_beat_down_and_nobody_playing(worker):
    """Issue #33 item 3: with beat dead and no traffic, overdue ties waited for beat. Each tie now
    asks the worker for the house rule at its deadline."""
    table = TableFactory(max_tie_bet=0, decision_timeout_s=1)
    player = make_player(balance=50_000, username="deadline-test")
    set_next_round(player, tie=True)
    tie = round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
    assert tie.status == RoundStatus.AWAITING_DECISION
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # nothing else runs: no beat, no request
        decided = Round.objects.get(pk=tie.pk)
        if decided.status != RoundStatus.AWAITING_DECISION:
            break
        assert worker.poll() is None, "the worker died"
        time.sleep(0.1)
    assert decided.decision_timed_out and decided.decided_by_type == "system"
    late = (decided.decided_at - decided.decision_deadline).total_seconds()
    assert 0 <= late < 10, late  # the figure (p99 under a second or two) is measured by benchmarks/deadlines.py
