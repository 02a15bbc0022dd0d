"""core/idempotency.py `idempotent_folded`: work that carries the key's claim and stored response in
its own statements is answered as `idempotent` answers (tests/casino/api/test_player_api.py tries
each answer on the rounds endpoint); work that does not carry them is a programming error, never
a response stored without its claim."""

from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import RequestFactory

from core import sql
from core.errors import IdempotencyConflict, IdempotencyInFlight, NotFound
from core.idempotency import idempotency_lock_id, idempotent_folded
from core.models import AuditEvent, IdempotencyRecord
from core.shapes import shape
from core.transactions import ReadChangedBeforeWrite
from tests.databases import advisory_locks_held, other_connection


@shape
class MadeShape:
    made: str


pytestmark = pytest.mark.django_db


def _request(body=b'{"n": 1}', key="fold-1"):
    return RequestFactory().post(
        "/api/v1/things/", data=body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key
    )


def _carrying_work(request_key):
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {sql.IDEMPOTENCY_CLAIM_COLUMNS} FROM {sql.IDEMPOTENCY_CLAIM_FROM}", request_key.claim_params()
        )
        request_key.claimed(cursor.fetchone())
        cursor.execute(sql.IDEMPOTENCY_STORE, request_key.store_params("made"))
        request_key.stored(cursor.fetchone()[0])


def test_carried_claim_and_store_answer_replay_and_conflict():
    respond = lambda made: (201, MadeShape(made=made))  # noqa: E731
    first = idempotent_folded(_request(), scope="t:1", work=_carrying_work, respond=respond)
    assert (first.status_code, first.data) == (201, {"made": "made"})
    replay = idempotent_folded(_request(), scope="t:1", work=_carrying_work, respond=respond)
    assert (replay.status_code, replay.data) == (201, {"made": "made"})
    with pytest.raises(IdempotencyConflict):
        idempotent_folded(_request(body=b'{"n": 2}'), scope="t:1", work=_carrying_work, respond=respond)
    assert IdempotencyRecord.objects.filter(scope="t:1").count() == 1


def test_work_that_does_not_carry_the_claim_is_refused_and_stores_nothing():
    with pytest.raises(RuntimeError, match="did not carry"):
        idempotent_folded(
            _request(key="fold-2"),
            scope="t:2",
            work=lambda request_key: None,
            respond=lambda made: (201, MadeShape(made=made)),
        )
    assert not IdempotencyRecord.objects.filter(scope="t:2").exists()


def test_what_is_stored_for_a_replay_is_made_from_a_declared_shape_only():
    """The stored bytes are the rendering of the answer's shape (core/shapes.py): a hand-built body
    is refused before anything is stored."""
    with pytest.raises(TypeError):
        idempotent_folded(
            _request(key="fold-3"), scope="t:3", work=_carrying_work, respond=lambda made: (201, {"made": made})
        )
    assert not IdempotencyRecord.objects.filter(scope="t:3").exists()
    first = idempotent_folded(
        _request(key="fold-4"), scope="t:4", work=_carrying_work, respond=lambda made: (201, MadeShape(made=made))
    )
    stored = IdempotencyRecord.objects.get(scope="t:4")
    assert first.rendered_content == stored.response_text.encode() == b'{"made":"made"}'


# --- work whose statements each commit alone (autocommit=True) -----------------------------------------


def _claiming_then(then):
    """Work that claims the key in a statement of its own, then does `then(request_key)`."""

    def work(request_key):
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {sql.IDEMPOTENCY_CLAIM_COLUMNS} FROM {sql.IDEMPOTENCY_CLAIM_FROM}", request_key.claim_params()
            )
            request_key.claimed(cursor.fetchone())
        assert not connection.in_atomic_block and advisory_locks_held() == 1  # committed, the key still held
        return then(request_key)

    return work


def _written_with_the_store(request_key):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT core_audit_record('system', 'test', 'made.alone', 'thing', %s, '{}'::jsonb),"
            f" {sql.IDEMPOTENCY_STORE_CALL}",
            [request_key.key, *request_key.store_params("made")],
        )
        request_key.stored(cursor.fetchone()[1])
    return "made"


@contextmanager
def _held_elsewhere(lock: int):
    """The key's lock held by another connection (a request with the key running)."""
    with other_connection() as other:
        other.execute("SELECT pg_advisory_lock(%s)", [lock])
        yield
        other.execute("SELECT pg_advisory_unlock(%s)", [lock])


RESPOND = lambda made: (201, MadeShape(made=made))  # noqa: E731


def _alone(key: str, work):
    """The request with Idempotency-Key `key` (scope t:a), its work run with `autocommit`."""
    return idempotent_folded(_request(key=key), scope="t:a", work=work, respond=RESPOND, autocommit=True)


@pytest.mark.django_db(transaction=True)
def test_autocommit_work_commits_alone_and_lets_the_key_go():
    first = _alone("alone-1", _claiming_then(_written_with_the_store))
    assert (first.status_code, first.data) == (201, {"made": "made"})
    assert advisory_locks_held() == 0
    replay = _alone("alone-1", _claiming_then(_written_with_the_store))
    assert replay["Idempotent-Replayed"] == "true" and replay.data == {"made": "made"}
    assert advisory_locks_held() == 0
    assert AuditEvent.objects.filter(action="made.alone").count() == 1


@pytest.mark.django_db(transaction=True)
def test_autocommit_work_refused_or_failing_between_its_statements_lets_the_key_go():
    def refused(request_key):
        raise NotFound("no such thing")

    answer = _alone("alone-2", _claiming_then(refused))
    assert answer.status_code == 404 and advisory_locks_held() == 0
    assert IdempotencyRecord.objects.get(scope="t:a", key="alone-2").response_status == 404  # the first answer

    def broken(request_key):
        raise RuntimeError("a bug between the statements")

    with pytest.raises(RuntimeError, match="a bug"):
        _alone("alone-3", _claiming_then(broken))
    assert advisory_locks_held() == 0
    again = _alone("alone-3", _claiming_then(_written_with_the_store))
    assert again.status_code == 201


@pytest.mark.django_db(transaction=True)
def test_autocommit_work_whose_key_was_answered_meanwhile_writes_nothing():
    """A twin that stored its answer between this request's two statements: the last statement
    raises with the store and undoes its write; the request is `idempotency_in_flight`."""

    def twin_answers_first(request_key):
        IdempotencyRecord.objects.create(
            scope="t:a", key="alone-4", request_hash=request_key.request_hash, response_status=201, response_text="{}"
        )
        return _written_with_the_store(request_key)

    with pytest.raises(IdempotencyInFlight):
        _alone("alone-4", _claiming_then(twin_answers_first))
    assert advisory_locks_held() == 0
    assert not AuditEvent.objects.filter(action="made.alone").exists()


@pytest.mark.django_db(transaction=True)
def test_autocommit_work_that_read_what_changed_runs_again_in_a_transaction():
    runs = []

    def work(request_key):
        runs.append((request_key.autocommit, connection.in_atomic_block))
        if request_key.autocommit:
            _claiming_then(lambda request_key: None)(request_key)
            raise ReadChangedBeforeWrite()
        _carrying_work(request_key)
        return "made"

    answer = _alone("alone-5", work)
    assert answer.status_code == 201 and runs == [(True, False), (False, True)]
    assert advisory_locks_held() == 0


@pytest.mark.django_db(transaction=True)
def test_a_key_held_by_a_running_request_is_in_flight_for_autocommit_work():
    with _held_elsewhere(idempotency_lock_id("t:a", "alone-6")), pytest.raises(IdempotencyInFlight):
        _alone("alone-6", _claiming_then(_written_with_the_store))
    assert advisory_locks_held() == 0 and not IdempotencyRecord.objects.filter(key="alone-6").exists()


def test_inside_a_callers_transaction_autocommit_work_runs_in_it():
    runs = []

    def work(request_key):
        runs.append(request_key.autocommit)
        _carrying_work(request_key)
        return "made"

    assert _alone("alone-7", work).status_code == 201
    assert runs == [False]
