"""Model instances from a plain row, and new ones for a database function to write, are the
instances the ORM would build."""

import uuid
from contextlib import contextmanager
from unittest import mock

import pytest
from django.db import connection
from django.db.models import Model
from django.db.models.signals import post_init

from accounts.models import ApiToken, Player, User
from accounts.tokens import token_issue
from casino.models import Round, Table, WalletCall
from casino.services.fairness import seed_pair_active
from core.rows import instance_new, instances_from_row, select_list
from tests.factories import TableFactory, make_player

pytestmark = pytest.mark.django_db


def _fields(instance):
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def _row(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def test_a_joined_row_gives_each_model_as_the_orm_reads_it():
    player = make_player(balance=0, username="rows")
    sql = (
        f"SELECT {select_list(User, 'u')}, {select_list(Player, 'p')} FROM accounts_user u"
        " LEFT JOIN accounts_player p ON p.user_id = u.id WHERE u.id = %s"
    )
    user, read_player = instances_from_row(_row(sql, [player.user_id]), (User, Player))
    assert _fields(user) == _fields(User.objects.get(pk=player.user_id))
    assert _fields(read_player) == _fields(Player.objects.get(pk=player.pk))
    assert not user._state.adding and user._state.db == connection.alias  # saves as an update


def test_an_outer_join_that_found_nothing_gives_none():
    staff = User.objects.create_user(username="no-player", password=None)
    sql = (
        f"SELECT {select_list(User, 'u')}, {select_list(Player, 'p')} FROM accounts_user u"
        " LEFT JOIN accounts_player p ON p.user_id = u.id WHERE u.id = %s"
    )
    user, player = instances_from_row(_row(sql, [staff.pk]), (User, Player))
    assert user.username == "no-player" and player is None


def test_json_and_dates_are_converted():
    table = TableFactory()
    token_issue(user=make_player(balance=0, username="dated").user)
    token = ApiToken.objects.get()
    (read_table,) = instances_from_row(
        _row(f"SELECT {select_list(Table, 't')} FROM casino_table t WHERE t.id = %s", [table.pk]), (Table,)
    )
    assert _fields(read_table) == _fields(Table.objects.get(pk=table.pk))
    (read_token,) = instances_from_row(
        _row(f"SELECT {select_list(ApiToken, 't')} FROM accounts_apitoken t WHERE t.digest = %s", [token.pk]),
        (ApiToken,),
    )
    assert read_token.last_used_at == token.last_used_at and read_token.created_at == token.created_at


def test_an_instance_made_without_init_is_the_orms_in_every_respect():
    """Made without `Model.__init__` (core/rows.py `_from_db`): its fields, state, equality, related
    objects and saving are those of the instance the ORM reads."""
    player = make_player(balance=0, username="fast")
    sql = f"SELECT {select_list(Player, 'p')} FROM accounts_player p WHERE p.id = %s"
    (read,) = instances_from_row(_row(sql, [player.pk]), (Player,))
    orm = Player.objects.get(pk=player.pk)
    assert vars(read).keys() == vars(orm).keys() and _fields(read) == _fields(orm)
    assert read == orm and hash(read) == hash(orm) and read.user == orm.user
    read.currency = "USD"
    read.save(update_fields=["currency"])
    assert Player.objects.get(pk=player.pk).currency == "USD"


@contextmanager
def _tables_made():
    """The tables made by `Table.__init__` meanwhile (someone listens for `post_init`)."""
    made = []

    def listener(sender, instance, **kwargs):
        made.append(instance)

    post_init.connect(listener, sender=Table)
    try:
        yield made
    finally:
        post_init.disconnect(listener, sender=Table)


def test_a_model_someone_listens_for_is_made_by_its_init():
    table = TableFactory()
    with _tables_made() as made:
        (read,) = instances_from_row(
            _row(f"SELECT {select_list(Table, 't')} FROM casino_table t WHERE t.id = %s", [table.pk]), (Table,)
        )
    assert made == [read]


def _new_pair(model, **values):
    """The instance `instance_new` makes, and the one `model(**values)` makes."""
    with mock.patch.object(Model, "__init__", side_effect=AssertionError("made by __init__")):
        made = instance_new(model, **values)
    return made, model(**values)


def test_a_new_instance_made_without_init_is_the_one_init_makes():
    """`instance_new` (the rounds and seamless debits that database functions write): every field
    by name, by attribute name or by its default, related objects cached, a fresh state."""
    player, table = make_player(balance=0, username="new"), TableFactory()
    pair = seed_pair_active(player=player)
    values = dict(id=uuid.uuid4(), player=player, table=table, seed_pair_id=pair.pk, currency="EUR", main_bet=100)
    made, orm = _new_pair(Round, **values)
    assert vars(made).keys() == vars(orm).keys() and _fields(made) == _fields(orm)
    assert made._state.adding and made._state.db is None and made._state.fields_cache == orm._state.fields_cache
    assert made.player is player and made.table is table and made.seed_pair == pair
    assert made.nets == {} and made.nets is not instance_new(Round, **values).nets  # a new dict each time
    call, orm_call = _new_pair(WalletCall, transaction_id="t-1", partner=None, player=player, amount=5)
    assert _fields(call) == {**_fields(orm_call), "id": call.id} and call.id != orm_call.id  # uuid4, each its own


def test_a_new_instance_that_needs_init_is_made_by_it():
    with _tables_made() as made:
        table = instance_new(Table, name="listened")
    assert made == [table]
    with pytest.raises(TypeError):  # not a field: __init__ refuses it, as it would anyway
        instance_new(Table, name="x", no_such_field=1)


def test_a_one_to_one_given_by_name_is_left_to_init():
    """Its descriptor caches the new instance on the related object too (`instance_new`)."""
    debit = instance_new(WalletCall, transaction_id="t-debit", amount=5)
    rollback = instance_new(WalletCall, transaction_id="t-rollback", reference=debit, amount=5)
    assert rollback.reference is debit and debit.rollback is rollback
