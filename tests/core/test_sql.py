"""Each statement of core/sql/, and core_audit_record, on real PostgreSQL."""

import json

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction

from core import nonces, sql
from core.idempotency import idempotency_lock_id
from core.models import AuditEvent, IdempotencyRecord, RequestNonce
from tests.databases import advisory_locks_held

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


def _session_claim(lock: int, scope: str, key: str) -> sql.Claim:
    with connection.cursor() as cursor:
        cursor.execute(
            sql.IDEMPOTENCY_CLAIM, sql.idempotency_claim_params(lock_id=lock, scope=scope, key=key, session=True)
        )
        return sql.idempotency_claimed(cursor.fetchone())


@pytest.mark.django_db(transaction=True)
def test_a_session_claim_holds_the_key_past_its_statement_until_the_store_releases_it():
    """Work whose statements each commit alone (core/idempotency.py): the claim's lock outlives the
    claim's own transaction, and the store that carries `release` lets it go with the response in."""
    lock = idempotency_lock_id("player:1", "alone")
    answer = sql.StoredAnswer(201, '{"n":1}', {"Content-Type": "application/json"})
    assert _session_claim(lock, "player:1", "alone") == sql.Claim(True, None)
    assert advisory_locks_held() == 1  # committed, and still held
    with connection.cursor() as cursor:
        store = sql.idempotency_store_params(
            scope="player:1", key="alone", request_hash="h", answer=answer, release=lock
        )
        cursor.execute(sql.IDEMPOTENCY_STORE, store)
        assert cursor.fetchone()[0] is True
    assert advisory_locks_held() == 0
    # A response found: the lock the claim took is let go at once.
    assert _session_claim(lock, "player:1", "alone") == sql.Claim(True, ("h", answer))
    assert advisory_locks_held() == 0


@pytest.mark.django_db(transaction=True)
def test_a_releasing_store_that_finds_a_response_raises_and_undoes_its_statement():
    """A store with `release` that finds a response stored already raises STORED_ALREADY, so that
    whatever its statement wrote besides (a round, here an audit event) is undone; the lock stays
    held for the caller's error path (`idempotency_release`)."""
    lock = idempotency_lock_id("player:1", "twice")
    first, second = sql.StoredAnswer(201, '{"n":1}', {}), sql.StoredAnswer(201, '{"n":2}', {})
    assert _session_claim(lock, "player:1", "twice") == sql.Claim(True, None)
    assert sql.idempotency_store(scope="player:1", key="twice", request_hash="h", answer=first)  # a twin's
    params = sql.idempotency_store_params(scope="player:1", key="twice", request_hash="h", answer=second, release=lock)
    with pytest.raises(DatabaseError) as raised, connection.cursor() as cursor:
        cursor.execute(
            "SELECT core_audit_record('system', 'test', 'written.with.the.store', 'thing', '1', '{}'::jsonb),"
            f" {sql.IDEMPOTENCY_STORE_CALL}",
            params,
        )
    assert raised.value.__cause__.sqlstate == sql.STORED_ALREADY
    assert not AuditEvent.objects.filter(action="written.with.the.store").exists()
    assert IdempotencyRecord.objects.get(scope="player:1", key="twice").response_text == '{"n":1}'
    assert advisory_locks_held() == 1
    assert sql.idempotency_release(lock_id=lock) is True
    assert advisory_locks_held() == 0
    assert sql.idempotency_release(lock_id=lock) is False  # not held any more


@pytest.mark.django_db(transaction=True)
def test_a_first_only_store_stores_a_first_response_and_otherwise_undoes_its_statement():
    """`first_only`: work whose key an earlier statement of the request claimed and committed
    (a seamless stake's placing statement) holds no lock; its store stores a first response, and
    one that finds a response stored already (a twin's, meanwhile) raises STORED_ALREADY, so that
    what its statement wrote besides is undone. No advisory lock is taken or released either way."""
    first, second = sql.StoredAnswer(201, '{"n":1}', {}), sql.StoredAnswer(201, '{"n":2}', {})
    statement = (
        "SELECT core_audit_record('system', 'test', 'written.with.the.store', 'thing', %s, '{}'::jsonb),"
        f" {sql.IDEMPOTENCY_STORE_CALL}"
    )
    params = sql.idempotency_store_params(
        scope="player:1", key="carried", request_hash="h", answer=first, first_only=True
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, ["1", *params])
        assert cursor.fetchone()[1] is True
    assert AuditEvent.objects.filter(action="written.with.the.store", object_id="1").exists()
    params = sql.idempotency_store_params(
        scope="player:1", key="carried", request_hash="h", answer=second, first_only=True
    )
    with pytest.raises(DatabaseError) as raised, connection.cursor() as cursor:
        cursor.execute(statement, ["2", *params])
    assert raised.value.__cause__.sqlstate == sql.STORED_ALREADY
    assert not AuditEvent.objects.filter(action="written.with.the.store", object_id="2").exists()
    assert IdempotencyRecord.objects.get(scope="player:1", key="carried").response_text == '{"n":1}'
    assert advisory_locks_held() == 0
    # Without it (nor `release`), a store that finds a response answers False and raises nothing.
    assert sql.idempotency_store(scope="player:1", key="carried", request_hash="h", answer=second) is False


def test_a_nonce_is_written_into_no_index_but_those_it_is_read_by():
    """One nonce is written with every signed request: its key's own index (the lookup) and the
    purge's index on its time, not the pattern index Django adds to a text primary key."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'core_requestnonce' ORDER BY indexname")
        indexes = [row[0] for row in cursor.fetchall()]
    assert len(indexes) == 2 and not [index for index in indexes if "pattern_ops" in index], indexes
