"""A response stored only if it is the first, with no lock to release (issue 34).

* `core_idempotency_store` takes `p_first_only`: a response stored already raises IDS01, as with
  `p_release`, for work whose key an earlier statement of the request claimed and committed (a
  seamless stake's placing statement, core/idempotency.py `RequestKey.claim_carried`).

The function gains a parameter with a default, so the function of the earlier signature is dropped
and the file loaded; reversed, the new body stays (it answers every call of the earlier one alike).
"""

from django.db import migrations

from core.sql_functions import function_drop, function_reload


class Migration(migrations.Migration):
    dependencies = [("core", "0009_request_nonce_without_pattern_index")]
    operations = [
        function_drop("core_idempotency_store", "text, text, text, integer, text, text, jsonb, bigint"),
        function_reload("core", "core_idempotency_store"),
    ]
