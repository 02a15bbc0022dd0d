"""`protection_stake_guards(player, kinds, at)`: whether the player is excluded at `at`, and the
amounts of the limits of these kinds in force then, as `[[kind, period, amount], ...]` (amount
null: removed). The rules of `exclusion_active` and `limit_in_force` in one statement, because
every round and deposit asks inside its transaction; `protection.selectors.stake_guards` calls it,
and so does casino's round statement (casino/sql.py)."""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION protection_stake_guards(p_player bigint, p_kinds text[], p_at timestamptz)
RETURNS TABLE (excluded boolean, limits jsonb) LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM protection_exclusion
                    WHERE player_id = p_player AND starts_at <= p_at AND ends_at > p_at),
           (SELECT coalesce(jsonb_agg(jsonb_build_array(l.kind, l.period, l.amount)), '[]'::jsonb)
              FROM (SELECT DISTINCT ON (kind, period) kind, period, amount FROM protection_playerlimit
                     WHERE player_id = p_player AND kind = ANY (p_kinds) AND effective_from <= p_at
                     ORDER BY kind, period, requested_at DESC, id DESC) AS l)
$$;
"""


def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTION)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("DROP FUNCTION protection_stake_guards(bigint, text[], timestamptz)")


class Migration(migrations.Migration):
    dependencies = [("protection", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
