"""What PostgreSQL itself refuses, whatever code talks to it."""

import pytest
from django.db import IntegrityError, InternalError, connection, transaction
from django.db.utils import DatabaseError

from ledger.models import JournalEntry, Posting
from tests.factories import make_player

pytestmark = pytest.mark.django_db(transaction=True)


def raw(sql, params=None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_posting SET amount = amount + 1",
        "DELETE FROM ledger_posting",
        "UPDATE ledger_journalentry SET reason = 'edited'",
        "DELETE FROM ledger_journalentry",
    ],
)
def test_raw_updates_and_deletes_are_refused(sql):
    make_player(balance=1_000)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        raw(sql)
    assert Posting.objects.count() == 2


def test_an_unbalanced_entry_is_refused_at_commit():
    player = make_player(balance=1_000)
    wallet = player.ledger_accounts.get(kind="player_wallet")
    with pytest.raises((IntegrityError, InternalError), match="does not balance"), transaction.atomic():
        entry = JournalEntry.objects.create(
            idempotency_key="bad", request_hash="x", kind="deposit", actor_type="system", actor_id="t"
        )
        Posting.objects.create(entry=entry, account=wallet, direction="C", amount=5, currency="EUR", balance_after=0)
        Posting.objects.create(entry=entry, account=wallet, direction="D", amount=4, currency="EUR", balance_after=0)
    assert not JournalEntry.objects.filter(idempotency_key="bad").exists()


def test_an_entry_without_postings_is_refused_at_commit():
    with pytest.raises((IntegrityError, InternalError), match="at least two"), transaction.atomic():
        JournalEntry.objects.create(
            idempotency_key="empty", request_hash="x", kind="deposit", actor_type="system", actor_id="t"
        )


def test_amounts_must_be_positive():
    player = make_player(balance=1_000)
    wallet = player.ledger_accounts.get(kind="player_wallet")
    entry = JournalEntry.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Posting.objects.create(entry=entry, account=wallet, direction="C", amount=-5, currency="EUR", balance_after=0)


def test_a_player_wallet_balance_cannot_be_set_negative():
    player = make_player(balance=1_000)
    with pytest.raises(IntegrityError), transaction.atomic():
        raw("UPDATE ledger_account SET balance = -1 WHERE player_id = %s", [player.pk])


def test_a_posting_added_to_a_balanced_entry_later_is_refused():
    player = make_player(balance=1_000)
    wallet = player.ledger_accounts.get(kind="player_wallet")
    entry = JournalEntry.objects.get(idempotency_key=f"test-funding:{player.pk}")
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        Posting.objects.create(entry=entry, account=wallet, direction="C", amount=5, currency="EUR", balance_after=0)
    assert Posting.objects.filter(entry=entry).count() == 2


def test_a_posting_in_another_currency_than_its_account_is_refused():
    player = make_player(balance=1_000)
    wallet = player.ledger_accounts.get(kind="player_wallet")
    with pytest.raises(IntegrityError, match="currency"), transaction.atomic():
        entry = JournalEntry.objects.create(
            idempotency_key="usd", request_hash="x", kind="deposit", actor_type="system", actor_id="t"
        )
        Posting.objects.bulk_create(
            [
                Posting(entry=entry, account=wallet, direction="C", amount=5, currency="USD", balance_after=0),
                Posting(entry=entry, account=wallet, direction="D", amount=5, currency="USD", balance_after=0),
            ]
        )


def test_a_balanced_entry_written_in_one_statement_passes():
    player = make_player(balance=1_000)
    wallet, in_play = (player.ledger_accounts.get(kind=kind) for kind in ("player_wallet", "player_in_play"))
    with transaction.atomic():
        entry = JournalEntry.objects.create(
            idempotency_key="ok", request_hash="x", kind="stake", actor_type="system", actor_id="t"
        )
        Posting.objects.bulk_create(
            [
                Posting(entry=entry, account=wallet, direction="D", amount=5, currency="EUR", balance_after=0),
                Posting(entry=entry, account=in_play, direction="C", amount=5, currency="EUR", balance_after=0),
            ]
        )
    assert Posting.objects.filter(entry=entry).count() == 2
