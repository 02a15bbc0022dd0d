"""Each statement of core/sql.py, and core_audit_record, on real PostgreSQL."""

import psycopg
import pytest
from django.db import connection, transaction

from core import sql
from core.idempotency import idempotency_lock_id
from core.models import AuditEvent, IdempotencyRecord

pytestmark = pytest.mark.django_db


def test_idempotency_claim_reads_nothing_for_a_new_key_and_the_stored_response_after():
    lock = idempotency_lock_id("player:1", "k")
    with transaction.atomic():
        assert sql.idempotency_claim(lock_id=lock, scope="player:1", key="k") == (True, None)
        assert sql.idempotency_store(scope="player:1", key="k", request_hash="h", status=201, body={"id": "r"},
                                     content_type="application/json")  # fmt: skip
    free, stored = sql.idempotency_claim(lock_id=lock, scope="player:1", key="k")
    request_hash, status, body, content_type = stored
    assert (free, request_hash, status, content_type) == (True, "h", 201, "application/json")
    assert IdempotencyRecord._meta.get_field("response_body").from_db_value(body, None, connection) == {"id": "r"}
    assert sql.idempotency_claim(lock_id=lock, scope="player:2", key="k") == (True, None)  # scoped to the caller


def test_idempotency_store_keeps_the_first_response():
    assert sql.idempotency_store(scope="s", key="k", request_hash="h", status=201, body={"n": 1}, content_type="a")
    assert not sql.idempotency_store(scope="s", key="k", request_hash="h", status=422, body={"n": 2}, content_type="a")
    assert IdempotencyRecord.objects.get(scope="s", key="k").response_body == {"n": 1}


@pytest.mark.django_db(transaction=True)
def test_idempotency_claim_finds_the_key_held_by_a_running_request():
    settings = connection.settings_dict
    lock = idempotency_lock_id("player:1", "busy")
    with psycopg.connect(host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
                         password=settings["PASSWORD"], dbname=settings["NAME"], autocommit=True) as first:  # fmt: skip
        first.execute("SELECT pg_advisory_lock(%s)", [lock])
        with transaction.atomic():
            assert sql.idempotency_claim(lock_id=lock, scope="player:1", key="busy") == (False, None)
        # The request ends: its lock goes with it (said here: closing the connection lets the server
        # drop it a moment later, which on a busy machine can come after the next claim).
        first.execute("SELECT pg_advisory_unlock(%s)", [lock])
    with transaction.atomic():
        assert sql.idempotency_claim(lock_id=lock, scope="player:1", key="busy") == (True, None)


def test_core_audit_record_writes_an_audit_event_as_audit_record_does():
    with connection.cursor() as cursor:
        cursor.execute("SELECT core_audit_record(%s, %s, %s, %s, %s, %s::jsonb)",
                       ["system", "x" * 80, "round.placed", "round", "r1", '{"nonce": 3}'])  # fmt: skip
    event = AuditEvent.objects.get(object_id="r1")
    assert (event.actor_type, event.actor_id, event.action, event.data) == ("system", "x" * 64, "round.placed",
                                                                            {"nonce": 3})  # fmt: skip
    assert event.created_at is not None
