"""`casino_rounds_settle` reads every round's accounts in the statement that claims the batch.

Each round of a batch cost two statements of its own before its posting: its player's wallet and
money in play (`ledger_player_accounts`) and its house shard (`ledger_house_account`). Both are
now columns of the statement that claims the rounds: a statement inside a function costs mostly
its executor's start and end (docs/BENCHMARKS.md), so a batch of 25 runs 50 statements fewer.
Nothing else changes: the function is migration 0011's (0010's, seamless rounds left alone) with
those two places edited.
"""

import importlib

from django.db import migrations

_BEFORE = importlib.import_module("casino.migrations.0011_seamless_wallet")

_CLAIMED_BEFORE = """array_agg(c.payout), array_agg(c.outcome)
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes"""
_CLAIMED_NOW = """array_agg(c.payout), array_agg(c.outcome), array_agg(a.wallet_id), array_agg(a.in_play_id),
               array_agg(ledger_house_account(c.currency, get_byte(uuid_send(c.id), 15) % 32))
          INTO v_ids, v_players, v_currencies, v_staked, v_payouts, v_outcomes, v_wallets, v_in_play, v_houses"""
_LOCKED_BEFORE = "FOR UPDATE SKIP LOCKED) AS c;"
_LOCKED_NOW = "FOR UPDATE SKIP LOCKED) AS c\n         CROSS JOIN LATERAL ledger_player_accounts(c.player_id, c.currency) AS a;"
_LOOKUP_LOOP = """    FOR i IN 1 .. array_length(v_ids, 1) LOOP
        SELECT a.wallet_id, a.in_play_id INTO v_wallet, v_play FROM ledger_player_accounts(v_players[i], v_currencies[i]) AS a;
        v_wallets := v_wallets || v_wallet;
        v_in_play := v_in_play || v_play;
        v_houses := v_houses || ledger_house_account(v_currencies[i], get_byte(uuid_send(v_ids[i]), 15) % 32);
    END LOOP;
"""
_LOOKUP_VARIABLES = "    v_wallet bigint;\n    v_play bigint;\n"


def _edited(function: str, before: str, now: str, count: int) -> str:
    assert function.count(before) == count, before
    return function.replace(before, now)


def settle_function() -> str:
    function = _BEFORE._settle_function(seamless_skipped=True)
    function = _edited(function, _CLAIMED_BEFORE, _CLAIMED_NOW, 2)
    function = _edited(function, _LOCKED_BEFORE, _LOCKED_NOW, 2)
    function = _edited(function, _LOOKUP_LOOP, "", 1)
    return _edited(function, _LOOKUP_VARIABLES, "", 1)


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(settle_function())


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_BEFORE._settle_function(seamless_skipped=True))


class Migration(migrations.Migration):
    dependencies = [("casino", "0011_seamless_wallet"), ("ledger", "0009_partner_seamless_account")]
    operations = [migrations.RunPython(forward, backward)]
