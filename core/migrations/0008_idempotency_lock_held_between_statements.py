"""An Idempotency-Key's lock held between statements that each commit alone (issue 34).

* `core_idempotency_claim` takes `p_session`: the key's lock held past the statement's own
  transaction (a session advisory lock), released at once if a response is stored already.
* `core_idempotency_store` takes `p_release`: the session lock released once the response is in,
  and a response stored already raises IDS01, so that the statement carrying it writes nothing.

Both gain a parameter with a default, so the functions of the earlier signatures are dropped and
the files loaded; reversed, the new bodies stay (they answer every call of the earlier ones alike).
"""

from django.db import migrations

from core.sql_functions import function_drop, function_reload


class Migration(migrations.Migration):
    dependencies = [("core", "0001_squashed_0007_request_nonces")]
    operations = [
        function_drop("core_idempotency_claim", "bigint, text, text, text"),
        function_reload("core", "core_idempotency_claim"),
        function_drop("core_idempotency_store", "text, text, text, integer, text, text, jsonb"),
        function_reload("core", "core_idempotency_store"),
    ]
