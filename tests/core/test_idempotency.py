"""core/idempotency.py `idempotent_folded`: work that carries the key's claim and stored response in
its own statements is answered as `idempotent` answers (tests/casino/api/test_player_api.py tries
each answer on the rounds endpoint); work that does not carry them is a programming error, never
a response stored without its claim."""

import pytest
from django.db import connection
from django.test import RequestFactory

from core import sql
from core.errors import IdempotencyConflict
from core.idempotency import idempotent_folded
from core.models import IdempotencyRecord
from core.shapes import shape


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
