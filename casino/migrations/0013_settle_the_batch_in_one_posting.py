"""`casino_rounds_settle` posts the whole batch with one call of the ledger's `ledger_post_entries`
and marks its rounds settled with one UPDATE; placing and deciding a round post through
`ledger_post_entries` too (one entry), without `ledger_post_entry`'s call in between.

Each round of a batch still has its own ledger entry (its key `round:<id>:settle`, its reason,
its postings: the stake out of money in play, the payout to the wallet, the rest to or from the
house); what changes is that the posting's statements run once per batch instead of once per
round, and so does the UPDATE of the rounds (docs/BENCHMARKS.md has the figures). Nothing else
changes: the function is migration 0012's with its settling loop replaced, and the placing and
deciding functions are migration 0008's with their posting call edited.
"""

import importlib

from django.db import migrations

_BEFORE = importlib.import_module("casino.migrations.0012_settle_accounts_with_the_batch")
_ROUND_FUNCTIONS = importlib.import_module("casino.migrations.0008_round_functions")

_STAKE_BEFORE = """ledger_post_entry(p_stake_key, 'stake', p_stake_reason, v.placed_by_type, v.placed_by_id, 'round',
                             v.id::text, NULL, ARRAY[p_wallet, p_in_play], ARRAY[-p_stake, p_stake],
                             ARRAY[v.currency, v.currency])"""
_STAKE_NOW = """ledger_post_entries(ARRAY[p_stake_key], '{stake}', ARRAY[p_stake_reason], ARRAY[v.placed_by_type],
                               ARRAY[v.placed_by_id], '{round}', ARRAY[v.id::text], '{NULL}', '{1,1}',
                               ARRAY[p_wallet, p_in_play], ARRAY[-p_stake, p_stake], ARRAY[v.currency, v.currency])"""
_RAISE_BEFORE = """ledger_post_entry(p_raise_key, 'stake', 'raise to go to war', v.decided_by_type, v.decided_by_id,
                                 'round', v.id::text, NULL, ARRAY[p_wallet, p_in_play],
                                 ARRAY[-v.raise_bet, v.raise_bet], ARRAY[v.currency, v.currency])"""
_RAISE_NOW = """ledger_post_entries(ARRAY[p_raise_key], '{stake}', '{raise to go to war}', ARRAY[v.decided_by_type],
                                   ARRAY[v.decided_by_id], '{round}', ARRAY[v.id::text], '{NULL}', '{1,1}',
                                   ARRAY[p_wallet, p_in_play], ARRAY[-v.raise_bet, v.raise_bet],
                                   ARRAY[v.currency, v.currency])"""


def _round_functions(*, entries: bool) -> str:
    """Migration 0008's casino_round_place and casino_round_decide, posting through
    ledger_post_entries (`entries`) or as they were."""
    functions = _ROUND_FUNCTIONS.FUNCTIONS[: _ROUND_FUNCTIONS.FUNCTIONS.index("CREATE OR REPLACE FUNCTION casino_rounds_settle")]
    if entries:
        functions = _BEFORE._edited(functions, _STAKE_BEFORE, _STAKE_NOW, 1)
        functions = _BEFORE._edited(functions, _RAISE_BEFORE, _RAISE_NOW, 1)
    return functions


# The settling loop's body, from its first statement to the loop's end, is what is replaced.
_LOOP_STARTS = "        v_accounts := ARRAY[v_in_play[i]];\n"
_LOOP_ENDS = "    END LOOP;\n"
_LOOP_NOW = """        v_done := v_done || v_ids[i];
        v_done_players := v_done_players || v_players[i];
        v_entry := cardinality(v_done);
        v_keys := v_keys || ('round:' || v_ids[i] || ':settle');
        v_reasons := v_reasons || (v_outcomes[i] || ': payout ' || v_payouts[i] || ' of ' || v_staked[i] || ' staked');
        v_references := v_references || v_ids[i]::text;
        -- The round's entry: its stake out of money in play, the payout to the wallet, the rest
        -- to or from the house.
        v_line_entries := v_line_entries || v_entry;
        v_accounts := v_accounts || v_in_play[i];
        v_amounts := v_amounts || -v_staked[i];
        IF v_payouts[i] > 0 THEN
            v_line_entries := v_line_entries || v_entry;
            v_accounts := v_accounts || v_wallets[i];
            v_amounts := v_amounts || v_payouts[i];
        END IF;
        IF v_staked[i] <> v_payouts[i] THEN
            v_line_entries := v_line_entries || v_entry;
            v_accounts := v_accounts || v_houses[i];
            v_amounts := v_amounts || (v_staked[i] - v_payouts[i]);
        END IF;
        v_line_currencies := v_line_currencies || array_fill(v_currencies[i], ARRAY[cardinality(v_accounts) - cardinality(v_line_currencies)]);
    END LOOP;

    v_entry := cardinality(v_done);
    IF v_entry > 0 THEN  -- every round its own entry, all posted by one call
        SELECT (array_agg(p.entry_index) FILTER (WHERE p.outcome = 'conflict'))[1] INTO v_conflict
          FROM ledger_post_entries(v_keys, array_fill('settlement'::text, ARRAY[v_entry]), v_reasons,
                                   array_fill('system'::text, ARRAY[v_entry]),
                                   array_fill('settlement'::text, ARRAY[v_entry]),
                                   array_fill('round'::text, ARRAY[v_entry]), v_references,
                                   array_fill(NULL::bigint, ARRAY[v_entry]), v_line_entries, v_accounts, v_amounts,
                                   v_line_currencies) AS p;
        IF v_conflict IS NOT NULL THEN
            RAISE EXCEPTION 'settlement of round % was posted with other content', v_done[v_conflict]
                USING ERRCODE = 'CSN03';
        END IF;
        UPDATE casino_round r SET status = 'settled', settled_at = statement_timestamp(),
                                  settle_attempts = r.settle_attempts + 1
          FROM unnest(v_done) AS d(id)
         WHERE r.id = d.id;
    END IF;
"""
_VARIABLES_BEFORE = """    v_accounts bigint[];
    v_amounts bigint[];
    v_outcome text;
"""
_VARIABLES_NOW = """    v_keys text[] := '{}';
    v_reasons text[] := '{}';
    v_references text[] := '{}';
    v_line_entries integer[] := '{}';
    v_accounts bigint[] := '{}';
    v_amounts bigint[] := '{}';
    v_line_currencies text[] := '{}';
    v_entry integer;
    v_conflict integer;
"""


def settle_function() -> str:
    function = _BEFORE.settle_function()
    assert function.count(_LOOP_STARTS) == 1, _LOOP_STARTS
    start = function.index(_LOOP_STARTS)
    end = function.index(_LOOP_ENDS, start) + len(_LOOP_ENDS)
    function = function[:start] + _LOOP_NOW + function[end:]
    return _BEFORE._edited(function, _VARIABLES_BEFORE, _VARIABLES_NOW, 1)


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(settle_function())
        cursor.execute(_round_functions(entries=True))


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(_BEFORE.settle_function())
        cursor.execute(_round_functions(entries=False))


class Migration(migrations.Migration):
    dependencies = [("casino", "0012_settle_accounts_with_the_batch"), ("ledger", "0011_post_entries_together")]
    operations = [migrations.RunPython(forward, backward)]
