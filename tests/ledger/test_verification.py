"""`ledger_verify` catches planted faults, and the command exits non-zero for them."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from ledger.models import VerificationRun
from ledger.services import player_accounts_open
from ledger.verification import ledger_verify
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def raw(sql, params=None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_a_clean_ledger_verifies_and_the_run_is_recorded(capsys):
    make_player(balance=500)
    call_command("ledger_verify")
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] is True and set(summary["checks"]) >= {
        "entries_balance",
        "cached_balances",
        "wallets_not_negative",
        "hash_chain",
        "zero_sum_per_currency",
    }
    assert VerificationRun.objects.filter(ok=True, triggered_by="command").exists()


def test_a_tampered_cached_balance_is_caught():
    player = make_player(balance=500)
    wallet, _ = player_accounts_open(player=player)
    raw("UPDATE ledger_account SET balance = balance + 1 WHERE id = %s", [wallet.pk])
    run = ledger_verify()
    assert not run.ok and run.summary["checks"]["cached_balances"]["problems"] == 1
    with pytest.raises(CommandError):
        call_command("ledger_verify")


def test_a_rewritten_entry_breaks_the_hash_chain():
    make_player(balance=500)
    make_player(balance=700)
    assert ledger_verify().ok  # seals both entries
    # Someone with the power to switch the triggers off rewrites history.
    raw("SET CONSTRAINTS ALL IMMEDIATE")  # fire the pending deferred checks before altering the table
    raw("ALTER TABLE ledger_posting DISABLE TRIGGER USER")
    raw("UPDATE ledger_posting SET amount = 900, balance_after = 900 WHERE amount = 700")
    raw("ALTER TABLE ledger_posting ENABLE TRIGGER USER")
    run = ledger_verify()
    chain = run.summary["checks"]["hash_chain"]
    assert not run.ok and chain["problems"] >= 1 and chain["examples"][0]["problem"] == "content changed"
