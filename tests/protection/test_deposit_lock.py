"""A deposit's lock on the player row must not block foreign-key checks on it: a round committing
(its stake holding the wallet) and a partner transfer in (holding the player row, waiting for the
wallet) deadlocked under the fault suite's load."""

import threading

import psycopg
import pytest
from django.db import connection, transaction

from ledger.services import outside_account
from protection.services import protection_check_deposit
from tests.factories import make_player

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_a_deposit_in_progress_leaves_foreign_key_checks_on_the_player_free():
    player = make_player()
    holding, release = threading.Event(), threading.Event()

    def deposit_in_progress():
        try:
            with transaction.atomic():
                protection_check_deposit(player=player, amount=100, source=outside_account(currency="EUR"))
                holding.set()
                release.wait(timeout=10)
        finally:
            connection.close()

    depositor = threading.Thread(target=deposit_in_progress)
    depositor.start()
    try:
        assert holding.wait(timeout=10)
        db = connection.settings_dict
        with psycopg.connect(
            host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"]
        ) as other:
            other.execute("SET lock_timeout = '2s'")
            # What PostgreSQL runs for a foreign key to the player when a round or entry commits.
            other.execute("SELECT 1 FROM accounts_player WHERE id = %s FOR KEY SHARE", [player.pk])
    finally:
        release.set()
        depositor.join(timeout=10)
