"""`ledger_lock_free_accounts(ids)`: of these accounts, lock those no other transaction holds
right now (in primary-key order, until the end of the transaction) and answer their ids, without
waiting for the others: a settlement batch pays the rounds whose accounts it got and leaves the
rest to the next batch, instead of waiting for a wallet that a round being placed holds."""

from django.db import migrations

LOCK_FREE = """
CREATE OR REPLACE FUNCTION ledger_lock_free_accounts(p_ids bigint[])
RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
    v_locked bigint[];
BEGIN  -- the rows free now, locked until the end of the transaction in primary-key order
    SELECT array_agg(l.id) INTO v_locked
      FROM (SELECT id FROM ledger_account WHERE id = ANY (p_ids) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
    RETURN coalesce(v_locked, '{}');
END $$;
"""




def forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(LOCK_FREE)


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("DROP FUNCTION ledger_lock_free_accounts(bigint[])")


class Migration(migrations.Migration):
    dependencies = [("ledger", "0007_leaner_posting")]
    operations = [migrations.RunPython(forward, backward)]
