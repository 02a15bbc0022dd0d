"""What PostgreSQL itself refuses, whatever code talks to it."""

import pytest
from django.db import IntegrityError, InternalError, OperationalError, connection, transaction
from django.db.utils import DatabaseError

from ledger.models import Account, JournalEntry, Posting
from tests.databases import other_connection
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


# The postings' entry_id and account_id have no foreign key (migration 0014): the trigger on new
# postings checks them, and ledger_keep_posted_accounts keeps what they reference.


def balanced_postings(entry_id, account_id, *, other_account_id=None):
    """Two postings of 5 EUR (a statement the trigger checks) on these ids, whether they exist or not."""
    raw(
        "INSERT INTO ledger_posting (entry_id, account_id, direction, amount, currency, balance_after)"
        " VALUES (%s, %s, 'C', 5, 'EUR', 0), (%s, %s, 'D', 5, 'EUR', 0)",
        [entry_id, account_id, entry_id, other_account_id or account_id],
    )


def new_entry(key):
    return JournalEntry.objects.create(idempotency_key=key, request_hash="x", kind="deposit", actor_type="system")


def test_a_posting_to_a_missing_account_is_refused_when_written():
    player = make_player(balance=1_000)
    wallet = player.ledger_accounts.get(kind="player_wallet")
    with pytest.raises(IntegrityError, match=r"account 999999999 of a posting .* does not exist"), transaction.atomic():
        balanced_postings(new_entry("missing account").pk, wallet.pk, other_account_id=999_999_999)
    assert not JournalEntry.objects.filter(idempotency_key="missing account").exists()


def test_a_posting_of_a_missing_entry_is_refused_when_written():
    player = make_player(balance=1_000)
    wallet = player.ledger_accounts.get(kind="player_wallet")
    postings = Posting.objects.count()
    refused = pytest.raises(IntegrityError, match="ledger entry 999999999 of a posting does not exist")
    with refused, transaction.atomic():
        balanced_postings(999_999_999, wallet.pk)
    assert Posting.objects.count() == postings


def test_an_account_with_postings_is_not_deleted_and_no_account_id_changes():
    player = make_player(balance=1_000)
    wallet = player.ledger_accounts.get(kind="player_wallet")
    with pytest.raises(IntegrityError, match="has postings"), transaction.atomic():
        raw("DELETE FROM ledger_account WHERE id = %s", [wallet.pk])
    with pytest.raises(IntegrityError, match="may not change"), transaction.atomic():
        raw("UPDATE ledger_account SET id = id + 1000000 WHERE id = %s", [wallet.pk])
    assert Account.objects.filter(pk=wallet.pk).exists()
    with transaction.atomic():  # an account without postings may go (as under a foreign key)
        unused = Account.objects.create(kind="house", currency="EUR", shard=31)
        raw("DELETE FROM ledger_account WHERE id = %s", [unused.pk])
        raw("UPDATE ledger_account SET balance = balance WHERE id = %s", [wallet.pk])  # other columns change freely
    assert not Account.objects.filter(pk=unused.pk).exists()


def test_no_account_is_deleted_above_read_committed():
    """Its snapshot could miss a posting committed meanwhile (a foreign key's check would see it)."""
    with pytest.raises(IntegrityError, match="repeatable read"), transaction.atomic():
        raw("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        unused = Account.objects.create(kind="house", currency="EUR", shard=30)
        raw("DELETE FROM ledger_account WHERE id = %s", [unused.pk])


@pytest.mark.parametrize(
    "tables",
    [
        "ledger_account",
        "ledger_journalentry, ledger_entryseal, ledger_adjustment, accounts_transfer",
    ],
)
def test_accounts_and_entries_are_truncated_only_with_the_postings(tables):
    make_player(balance=1_000)
    with pytest.raises(IntegrityError, match="TRUNCATE"), transaction.atomic():
        raw(f"TRUNCATE {tables}")
    assert Posting.objects.count() == 2
    with transaction.atomic():
        raw(f"TRUNCATE {tables}, ledger_posting")
        assert not Posting.objects.exists()
        transaction.set_rollback(True)
    assert Posting.objects.count() == 2


def test_a_posting_being_written_holds_off_the_delete_of_its_account():
    """The trigger locks each new posting's account FOR KEY SHARE: a concurrent DELETE waits for the
    posting's transaction, then sees its postings and is refused."""
    first, second = (Account.objects.create(kind="house", currency="EUR", shard=shard) for shard in (28, 29))
    other = other_connection(autocommit=False)
    with other:
        with other.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_journalentry (idempotency_key, request_hash, kind, reason, actor_type, actor_id,"
                " reference_type, reference_id, created_at) VALUES ('raw', 'x', 'adjustment', '', 'system', 't', '',"
                " '', now()) RETURNING id"
            )
            (entry_id,) = cursor.fetchone()
            cursor.execute(
                "INSERT INTO ledger_posting (entry_id, account_id, direction, amount, currency, balance_after)"
                " VALUES (%s, %s, 'C', 5, 'EUR', 5), (%s, %s, 'D', 5, 'EUR', -5)",
                [entry_id, first.pk, entry_id, second.pk],
            )
        with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
            raw("SET LOCAL lock_timeout = '200ms'")
            raw("DELETE FROM ledger_account WHERE id = %s", [second.pk])
        other.commit()
    with pytest.raises(IntegrityError, match="has postings"), transaction.atomic():
        raw("DELETE FROM ledger_account WHERE id = %s", [second.pk])
