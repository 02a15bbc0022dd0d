"""Each statement of ledger/sql/, on real PostgreSQL."""

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction

from accounts.services import partner_create
from ledger import sql
from ledger.models import Account, AccountKind, EntrySeal, JournalEntry, Posting
from ledger.services import house_account, partner_seamless_account_open, player_accounts_open
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def post(accounts, amounts, *, key="k", reference_id="1"):
    return sql.post_entry(
        idempotency_key=key,
        kind="stake",
        reason="r",
        actor_type="system",
        actor_id="tests",
        reference_type="round",
        reference_id=reference_id,
        reverses_id=None,
        account_ids=[account.id for account in accounts],
        amounts=amounts,
        currencies=[account.currency for account in accounts],
    )


def test_accounts_of_player_reads_both_of_the_players_accounts_in_their_currency():
    player = make_player(balance=100)
    wallet, in_play = player_accounts_open(player=player)
    found = {account.kind: account for account in sql.accounts_of_player(player_id=player.pk, currency="EUR")}
    assert {kind: account.pk for kind, account in found.items()} == {
        AccountKind.PLAYER_WALLET: wallet.pk,
        AccountKind.PLAYER_IN_PLAY: in_play.pk,
    }
    assert found[AccountKind.PLAYER_WALLET].player_id == player.pk
    assert sql.accounts_of_player(player_id=player.pk, currency="USD") == []


def test_system_account_finds_a_shard_owned_by_no_one():
    shard = house_account(currency="EUR", spread_by="x")
    found = sql.system_account(kind="house", currency="EUR", shard=shard.shard)
    assert (found.pk, found.kind, found.player_id, found.partner_id) == (shard.pk, "house", None, None)
    assert sql.system_account(kind="house", currency="GBP", shard=shard.shard) is None


def test_partner_account_finds_the_shard_of_that_partner_only():
    (seamless, _), (other, _) = partner_create(name="Seamless"), partner_create(name="Other")
    player = make_player()
    opened = partner_seamless_account_open(partner=seamless, player=player)
    found = sql.partner_account(kind="partner_seamless", currency="EUR", shard=opened.shard, partner_id=seamless.pk)
    assert (found.pk, found.kind, found.partner_id, found.player_id) == (
        opened.pk,
        "partner_seamless",
        seamless.pk,
        None,
    )
    assert sql.partner_account(kind="partner_seamless", currency="EUR", shard=opened.shard, partner_id=other.pk) is None
    assert (
        sql.partner_account(kind="partner_seamless", currency="USD", shard=opened.shard, partner_id=seamless.pk) is None
    )
    assert partner_seamless_account_open(partner=seamless, player=player).pk == opened.pk  # found, not opened again


def test_post_entry_writes_the_entry_its_balances_and_postings_once_per_key():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    entry_id, outcome = post([wallet, wallet, in_play], [-100, -200, 300])
    assert outcome == sql.POSTED
    entry = JournalEntry.objects.get(pk=entry_id)
    assert (entry.idempotency_key, entry.kind, entry.reference_id) == ("k", "stake", "1")
    rows = list(
        Posting.objects.filter(entry=entry)
        .order_by("id")
        .values_list("account_id", "direction", "amount", "balance_after")
    )
    assert rows == [(wallet.pk, "D", 100, 900), (wallet.pk, "D", 200, 700), (in_play.pk, "C", 300, 300)]
    # The key is taken: the same content (lines in any order) replays it, other content conflicts.
    assert post([in_play, wallet, wallet], [300, -200, -100]) == (entry_id, sql.REPLAYED)
    assert post([wallet, in_play], [-300, 300]) == (entry_id, sql.CONFLICT)
    assert post([wallet, wallet, in_play], [-100, -200, 300], reference_id="2") == (entry_id, sql.CONFLICT)
    wallet.refresh_from_db()
    assert wallet.balance == 700


def test_the_request_hash_is_the_entrys_content_and_nothing_else():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    first = JournalEntry.objects.get(pk=post([wallet, in_play], [-1, 1], key="a")[0])
    second = JournalEntry.objects.get(pk=post([in_play, wallet], [1, -1], key="b")[0])
    other = JournalEntry.objects.get(pk=post([wallet, in_play], [-2, 2], key="c")[0])
    assert len(first.request_hash) == 64 and first.request_hash == second.request_hash != other.request_hash


@pytest.mark.parametrize(
    ("accounts", "sqlstate"), [("overdraw", sql.INSUFFICIENT_FUNDS), ("missing", sql.MISSING_ACCOUNT)]
)
def test_post_entry_refuses_with_its_sqlstate_and_writes_nothing(accounts, sqlstate):
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    entries = JournalEntry.objects.count()
    if accounts == "missing":
        in_play.id = 10**12
    with pytest.raises(DatabaseError) as refused, transaction.atomic():
        post([wallet, in_play], [-1_001, 1_001] if accounts == "overdraw" else [-1, 1])
    assert refused.value.__cause__.sqlstate == sqlstate
    assert JournalEntry.objects.count() == entries


@pytest.mark.django_db(transaction=True)
def test_seal_lock_holds_off_a_second_sealer_until_commit():
    settings = connection.settings_dict
    with transaction.atomic():
        sql.seal_lock()
        with psycopg.connect(
            host=settings["HOST"],
            port=settings["PORT"] or 5432,
            user=settings["USER"],
            password=settings["PASSWORD"],
            dbname=settings["NAME"],
        ) as other:
            assert other.execute("SELECT pg_try_advisory_lock(%s)", [sql.SEAL_LOCK_ID]).fetchone() == (False,)
    with psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        password=settings["PASSWORD"],
        dbname=settings["NAME"],
    ) as other:
        assert other.execute("SELECT pg_try_advisory_lock(%s)", [sql.SEAL_LOCK_ID]).fetchone() == (True,)


@pytest.mark.django_db(transaction=True)
def test_snapshot_read_only_makes_a_repeatable_read_transaction_that_writes_nothing():
    with transaction.atomic():
        sql.snapshot_read_only()
        with connection.cursor() as cursor:
            cursor.execute("SHOW transaction_isolation")
            assert cursor.fetchone() == ("repeatable read",)
            cursor.execute("SHOW transaction_read_only")
            assert cursor.fetchone() == ("on",)


def post_entries(entries, *, lines):
    """ledger_post_entries: `entries` as (key, reference id), `lines` as (entry number, account, amount)."""
    count = len(entries)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT entry_index, entry_id, outcome FROM ledger_post_entries(%s, %s, %s, %s, %s, %s, %s, %s::bigint[],"
            " %s, %s, %s, %s)",
            [
                [key for key, _ in entries],
                ["stake"] * count,
                ["r"] * count,
                ["system"] * count,
                ["tests"] * count,
                ["round"] * count,
                [reference for _, reference in entries],
                [None] * count,
                [entry for entry, _, _ in lines],
                [account.id for _, account, _ in lines],
                [amount for _, _, amount in lines],
                [account.currency for _, account, _ in lines],
            ],
        )
        return cursor.fetchall()


def test_post_entries_writes_each_entry_with_its_own_key_and_running_balances():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    house = house_account(currency="EUR", spread_by="tests")
    house.refresh_from_db(fields=["balance"])  # the balance before (house_account reads no balance)
    post([wallet, in_play], [-300, 300], key="stake")
    answered = post_entries(
        [("a", "1"), ("b", "2")],
        lines=[(1, in_play, -100), (1, wallet, 200), (1, house, -100), (2, in_play, -200), (2, house, 200)],
    )
    assert [(index, outcome) for index, _, outcome in answered] == [(1, sql.POSTED), (2, sql.POSTED)]
    first, second = (JournalEntry.objects.get(pk=entry_id) for _, entry_id, _ in answered)
    assert (first.idempotency_key, first.reference_id, second.idempotency_key, second.reference_id) == (
        "a",
        "1",
        "b",
        "2",
    )
    assert first.pk < second.pk
    rows = list(
        Posting.objects.filter(entry__in=[first, second])
        .order_by("id")
        .values_list("entry_id", "account_id", "direction", "amount", "balance_after")
    )
    assert rows == [
        (first.pk, in_play.pk, "D", 100, 200),
        (first.pk, wallet.pk, "C", 200, 900),
        (first.pk, house.pk, "D", 100, house.balance - 100),
        (second.pk, in_play.pk, "D", 200, 0),
        (second.pk, house.pk, "C", 200, house.balance + 100),
    ]
    for account, balance in ((wallet, 900), (in_play, 0)):
        account.refresh_from_db()
        assert account.balance == balance
    # Each entry's request hash is the one a posting of the same content alone has.
    post([wallet, in_play], [-200, 200], key="more")
    alone = JournalEntry.objects.get(pk=post([in_play, house], [-200, 200], key="alone", reference_id="2")[0])
    assert len(second.request_hash) == 64 and alone.request_hash == second.request_hash != first.request_hash


def test_post_entries_replays_or_refuses_a_taken_key_and_posts_only_the_new_entries():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    replayed_id, _ = post([wallet, in_play], [-10, 10], key="same", reference_id="1")
    conflict_id, _ = post([wallet, in_play], [-20, 20], key="other", reference_id="2")
    answered = post_entries(
        [("same", "1"), ("new", "3"), ("other", "2")],
        lines=[
            (1, wallet, -10),
            (1, in_play, 10),
            (2, wallet, -30),
            (2, in_play, 30),
            (3, wallet, -99),
            (3, in_play, 99),
        ],
    )
    new_id = answered[1][1]
    assert answered == [(1, replayed_id, sql.REPLAYED), (2, new_id, sql.POSTED), (3, conflict_id, sql.CONFLICT)]
    assert Posting.objects.filter(entry_id=new_id).count() == 2
    assert Posting.objects.filter(entry_id__in=[replayed_id, conflict_id]).count() == 4  # nothing added to either
    wallet.refresh_from_db()
    assert wallet.balance == 1_000 - 10 - 20 - 30


def test_post_entries_refuses_a_player_account_below_zero_after_any_entry():
    player = make_player(balance=100)
    wallet, in_play = player_accounts_open(player=player)
    entries = JournalEntry.objects.count()
    # At the end the wallet would hold 50, but after the first entry it would be at -50.
    with pytest.raises(DatabaseError) as refused, transaction.atomic():
        post_entries(
            [("a", "1"), ("b", "2")], lines=[(1, wallet, -150), (1, in_play, 150), (2, in_play, -100), (2, wallet, 100)]
        )
    assert refused.value.__cause__.sqlstate == sql.INSUFFICIENT_FUNDS
    assert JournalEntry.objects.count() == entries


@pytest.mark.parametrize("malformed", ["keys repeated", "lines out of order", "lines of no entry", "arrays apart"])
def test_post_entries_refuses_malformed_entries_and_writes_nothing(malformed):
    player = make_player(balance=100)
    wallet, in_play = player_accounts_open(player=player)
    entries = [("a", "1"), ("a" if malformed == "keys repeated" else "b", "2")]
    lines = [(1, wallet, -1), (1, in_play, 1), (2, wallet, -1), (2, in_play, 1)]
    if malformed == "lines out of order":
        lines = [lines[2], lines[0], lines[1], lines[3]]
    elif malformed == "lines of no entry":
        lines = [*lines[:2], (3, wallet, -1), (3, in_play, 1)]
    before = JournalEntry.objects.count()
    with pytest.raises(DatabaseError) as refused, transaction.atomic():
        if malformed == "arrays apart":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT * FROM ledger_post_entries('{a}', '{stake}', '{r}', '{system}', '{t}', '{round}', '{1}',"
                    " '{NULL}', '{1}', %s, %s, '{EUR,EUR}')",
                    [[wallet.id, in_play.id], [-1, 1]],
                )
        else:
            post_entries(entries, lines=lines)
    assert refused.value.__cause__.sqlstate == sql.MALFORMED_ENTRIES
    assert JournalEntry.objects.count() == before


def test_ledger_player_accounts_finds_the_wallet_and_money_in_play():
    player = make_player()
    wallet, in_play = player_accounts_open(player=player)
    with connection.cursor() as cursor:
        cursor.execute("SELECT wallet_id, in_play_id FROM ledger_player_accounts(%s, %s)", [player.pk, "EUR"])
        assert cursor.fetchone() == (wallet.pk, in_play.pk)
        cursor.execute("SELECT wallet_id, in_play_id FROM ledger_player_accounts(%s, %s)", [player.pk, "USD"])
        assert cursor.fetchone() == (None, None)


def test_ledger_house_account_opens_a_shard_once():
    with connection.cursor() as cursor:
        cursor.execute("SELECT ledger_house_account(%s, %s)", ["GBP", 7])
        opened = cursor.fetchone()[0]
        cursor.execute("SELECT ledger_house_account(%s, %s)", ["GBP", 7])
        assert cursor.fetchone()[0] == opened
    assert house_account(currency="GBP", spread_by="x").kind == AccountKind.HOUSE
    shard = Account.objects.get(pk=opened)
    assert (shard.kind, shard.currency, shard.shard, shard.player_id, shard.partner_id) == (
        "house",
        "GBP",
        7,
        None,
        None,
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("through", ["function", "accounts_lock"])
def test_ledger_lock_accounts_holds_their_rows_until_commit(through):
    player = make_player()
    wallet, in_play = player_accounts_open(player=player)
    settings = connection.settings_dict
    with transaction.atomic():
        if through == "accounts_lock":
            sql.accounts_lock(account_ids=[in_play.pk, wallet.pk])
        else:
            with connection.cursor() as cursor:
                cursor.execute("SELECT ledger_lock_accounts(%s)", [[in_play.pk, wallet.pk]])
        other = psycopg.connect(
            host=settings["HOST"],
            port=settings["PORT"] or 5432,
            user=settings["USER"],
            password=settings["PASSWORD"],
            dbname=settings["NAME"],
        )
        with other, pytest.raises(psycopg.errors.LockNotAvailable):
            other.execute("SELECT 1 FROM ledger_account WHERE id = %s FOR UPDATE NOWAIT", [wallet.pk])


@pytest.mark.django_db(transaction=True)
def test_accounts_lock_reading_balances_locks_in_key_order_and_can_leave_the_held_ones():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    settings = connection.settings_dict
    other = psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        password=settings["PASSWORD"],
        dbname=settings["NAME"],
    )
    with other:
        other.execute("SELECT 1 FROM ledger_account WHERE id = %s FOR NO KEY UPDATE", [in_play.pk])
        with transaction.atomic():
            assert sql.accounts_lock_reading_balances(account_ids=[in_play.pk, wallet.pk], skip_locked=True) == {
                wallet.pk: 1_000
            }
        other.rollback()
        with transaction.atomic():
            assert sql.accounts_lock_reading_balances(account_ids=[in_play.pk, wallet.pk], skip_locked=False) == {
                wallet.pk: 1_000,
                in_play.pk: 0,
            }
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute("SELECT 1 FROM ledger_account WHERE id = %s FOR UPDATE NOWAIT", [wallet.pk])
            other.rollback()


def test_the_sealers_statements_read_unsealed_entries_and_append_links_in_order():
    player = make_player(balance=1_000)  # its deposit is an entry
    wallet, in_play = player_accounts_open(player=player)
    post([wallet, in_play], [-10, 10], key="seal-a")
    post([wallet, in_play], [-20, 20], key="seal-b")
    assert sql.seal_head() is None
    entries = sql.unsealed_entries(limit=10)
    assert [e.idempotency_key for e in entries][-2:] == ["seal-a", "seal-b"] and entries == sorted(entries)
    postings = sql.postings_of_entries(entry_ids=[entries[-1].id])
    assert [(p.account_id, p.direction, p.amount, p.balance_after) for p in postings[entries[-1].id]] == [
        (wallet.pk, "D", 20, 970),
        (in_play.pk, "C", 20, 30),
    ]
    ids = [e.id for e in entries]
    sql.seals_insert(
        entry_ids=ids,
        previous_hashes=["0" * 64] + [f"{n:064d}" for n in range(1, len(ids))],
        hashes=[f"{n:064d}" for n in range(1, len(ids) + 1)],
    )
    assert [s.entry_id for s in EntrySeal.objects.order_by("sequence")] == ids
    assert sql.seal_head() == f"{len(ids):064d}" and sql.unsealed_entries(limit=10) == []


def test_the_sealer_looks_back_a_window_of_ids_and_a_full_pass_everywhere(monkeypatch):
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    late = JournalEntry.objects.get(pk=post([wallet, in_play], [-1, 1], key="late")[0])
    for n in range(3):
        post([wallet, in_play], [-1, 1], key=f"after-{n}")
    sealed_after = [e.id for e in sql.unsealed_entries(limit=10) if e.id > late.id]
    sql.seals_insert(entry_ids=sealed_after, previous_hashes=["0" * 64] * 3, hashes=[f"{n:064d}" for n in range(3)])
    monkeypatch.setattr(sql, "SEAL_LOOKBACK", 2)  # the late entry lies further back than the window
    assert late.id not in [e.id for e in sql.unsealed_entries(limit=10)]
    assert late.id in [e.id for e in sql.unsealed_entries(limit=10, everywhere=True)]
    monkeypatch.setattr(sql, "SEAL_LOOKBACK", 100_000)
    assert late.id in [e.id for e in sql.unsealed_entries(limit=10)]


def test_the_house_shard_is_the_databases_rule_of_the_key():
    """`house_account` is the shard `ledger_house_shard` picks for the key: stable, one of 32, spread."""
    keys = [f"round:{n}:settle" for n in range(200)]
    with connection.cursor() as cursor:
        cursor.execute("SELECT k, ledger_house_shard(k) FROM unnest(%s::text[]) AS k", [keys])
        shards = dict(cursor.fetchall())
    assert {key: house_account(currency="EUR", spread_by=key).shard for key in keys[:40]} == {
        key: shards[key] for key in keys[:40]
    }
    assert set(shards.values()) == set(range(32))
    assert house_account(currency="EUR", spread_by="k").id == house_account(currency="EUR", spread_by="k").id


@pytest.mark.parametrize("malformed", ["no lines", "a line of another entry", "currencies apart", "amounts apart"])
def test_post_entries_refuses_one_malformed_entry_and_writes_nothing(malformed):
    """One entry is checked by plain expressions (its own branch): the same refusals as for several."""
    player = make_player(balance=100)
    wallet, in_play = player_accounts_open(player=player)
    line_entries, accounts, amounts, currencies = [1, 1], [wallet.id, in_play.id], [-1, 1], ["EUR", "EUR"]
    if malformed == "no lines":
        line_entries, accounts, amounts, currencies = [], [], [], []
    elif malformed == "a line of another entry":
        line_entries = [1, 2]
    elif malformed == "currencies apart":
        currencies = ["EUR"]
    else:
        amounts = [-1, 1, 0]
    before = JournalEntry.objects.count()
    with pytest.raises(DatabaseError) as refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT * FROM ledger_post_entries('{a}', '{stake}', '{r}', '{system}', '{t}', '{round}', '{1}',"
            " '{NULL}', %s::integer[], %s::bigint[], %s::bigint[], %s::text[])",
            [line_entries, accounts, amounts, currencies],
        )
    assert refused.value.__cause__.sqlstate == sql.MALFORMED_ENTRIES
    assert JournalEntry.objects.count() == before


@pytest.mark.parametrize(("case", "sqlstate"), [("missing", sql.MISSING_ACCOUNT), ("overdraw", sql.INSUFFICIENT_FUNDS)])
def test_post_entries_tells_a_missing_account_from_insufficient_funds_and_writes_nothing(case, sqlstate):
    """Several entries: the count of the accounts locked tells the two apart."""
    player = make_player(balance=100)
    wallet, in_play = player_accounts_open(player=player)
    if case == "missing":
        in_play.id = 10**12
    entries, balances = JournalEntry.objects.count(), [a.balance for a in Account.objects.order_by("id")]
    with pytest.raises(DatabaseError) as refused, transaction.atomic():
        post_entries(
            [("a", "1"), ("b", "2")],
            lines=[
                (1, wallet, -50),
                (1, in_play, 50),
                (2, wallet, -60 if case == "missing" else -51),
                (2, in_play, 60 if case == "missing" else 51),
            ],
        )
    assert refused.value.__cause__.sqlstate == sqlstate
    assert JournalEntry.objects.count() == entries
    assert [account.balance for account in Account.objects.order_by("id")] == balances


def test_one_entry_replays_its_key_and_refuses_other_content_without_moving_money():
    player = make_player(balance=1_000)
    wallet, in_play = player_accounts_open(player=player)
    entry_id, _ = post([wallet, in_play], [-10, 10], key="once")
    postings = Posting.objects.count()
    assert post([wallet, in_play], [-10, 10], key="once") == (entry_id, sql.REPLAYED)
    assert post([wallet, in_play], [-11, 11], key="once") == (entry_id, sql.CONFLICT)
    assert post([in_play, wallet], [10, -10], key="once") == (entry_id, sql.REPLAYED)  # the lines' order is no content
    assert Posting.objects.count() == postings
    wallet.refresh_from_db()
    assert wallet.balance == 990
