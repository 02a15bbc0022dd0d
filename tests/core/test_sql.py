"""Each statement of core/sql/, and core_audit_record, on real PostgreSQL."""

import json

import psycopg
import pytest
from django.db import connection, transaction

from core import nonces, sql
from core.idempotency import idempotency_lock_id
from core.models import AuditEvent, IdempotencyRecord, RequestNonce

pytestmark = pytest.mark.django_db


def test_idempotency_claim_reads_nothing_for_a_new_key_and_the_stored_response_after():
    lock = idempotency_lock_id("player:1", "k")
    answer = sql.StoredAnswer(201, '{"id":"r","a":1}', {"Content-Type": "application/json", "X-Request-ID": "r1"})
    with transaction.atomic():
        assert sql.idempotency_claim(lock_id=lock, scope="player:1", key="k") == sql.Claim(True, None)
        assert sql.idempotency_store(scope="player:1", key="k", request_hash="h", answer=answer)
    assert sql.idempotency_claim(lock_id=lock, scope="player:1", key="k") == sql.Claim(True, ("h", answer))  # as it was
    assert sql.idempotency_claim(lock_id=lock, scope="player:2", key="k") == sql.Claim(
        True, None
    )  # scoped to the caller


def test_idempotency_claim_answers_a_record_stored_before_texts_were_as_text():
    IdempotencyRecord.objects.create(
        scope="s",
        key="old",
        request_hash="h",
        response_status=201,
        response_body={"n": 1},
        response_content_type="application/json",
    )
    _free, (_hash, answer), _taken = sql.idempotency_claim(lock_id=1, scope="s", key="old")
    assert answer.status == 201 and json.loads(answer.text) == {"n": 1}
    assert answer.headers == {"Content-Type": "application/json"}


def test_idempotency_store_keeps_the_first_response():
    first, second = sql.StoredAnswer(201, '{"n":1}', {}), sql.StoredAnswer(422, '{"n":2}', {})
    assert sql.idempotency_store(scope="s", key="k", request_hash="h", answer=first)
    assert not sql.idempotency_store(scope="s", key="k", request_hash="h", answer=second)
    assert IdempotencyRecord.objects.get(scope="s", key="k").response_text == '{"n":1}'


@pytest.mark.django_db(transaction=True)
def test_idempotency_claim_finds_the_key_held_by_a_running_request():
    settings = connection.settings_dict
    lock = idempotency_lock_id("player:1", "busy")
    with psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        password=settings["PASSWORD"],
        dbname=settings["NAME"],
        autocommit=True,
    ) as first:
        first.execute("SELECT pg_advisory_lock(%s)", [lock])
        with transaction.atomic():
            assert sql.idempotency_claim(lock_id=lock, scope="player:1", key="busy") == sql.Claim(False, None)
        first.execute("SELECT pg_advisory_unlock(%s)", [lock])  # now, not when the closed backend has exited
    with transaction.atomic():
        assert sql.idempotency_claim(lock_id=lock, scope="player:1", key="busy") == sql.Claim(True, None)


def test_core_audit_record_writes_an_audit_event_as_audit_record_does():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT core_audit_record(%s, %s, %s, %s, %s, %s::jsonb)",
            ["system", "x" * 80, "round.placed", "round", "r1", '{"nonce": 3}'],
        )
    event = AuditEvent.objects.get(object_id="r1")
    assert (event.actor_type, event.actor_id, event.action, event.data) == (
        "system",
        "x" * 64,
        "round.placed",
        {"nonce": 3},
    )
    assert event.created_at is not None


def test_a_nonce_is_recorded_once_by_the_claim_or_by_a_statement_of_its_own():
    with transaction.atomic():
        claim = sql.idempotency_claim(lock_id=7, scope="partner:1", key="k", nonce="partner:1:n-1")
        assert claim == sql.Claim(True, None, False)
    taken = sql.idempotency_claim(lock_id=7, scope="partner:1", key="k2", nonce="partner:1:n-1")
    assert taken.nonce_taken and not taken.free and taken.stored is None  # a replay: no lock taken, nothing read
    with connection.cursor() as cursor:
        cursor.execute(nonces.NONCE_CLAIM, ["partner:1:n-1"])
        assert cursor.fetchone()[0] is False
        cursor.execute(nonces.NONCE_CLAIM, ["partner:1:n-2"])
        assert cursor.fetchone()[0] is True
    assert set(RequestNonce.objects.values_list("key", flat=True)) == {"partner:1:n-1", "partner:1:n-2"}
