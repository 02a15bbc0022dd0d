"""Data migrations of core, run forwards on real rows."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


@pytest.fixture(autouse=True)
def _whole_schema_afterwards():
    """Migrating core back unapplies what depends on it (other apps' functions): every later test
    needs the whole schema again."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_claims_left_in_flight_are_dropped_and_stored_responses_kept():
    old = _migrate(("core", "0001_initial"))
    try:
        records = old.get_model("core", "IdempotencyRecord")
        records.objects.create(scope="player:1", key="died", request_hash="h", in_flight=True)
        records.objects.create(scope="player:1", key="done", request_hash="h", in_flight=False, response_status=201,
                               response_body={"id": "r"}, response_content_type="application/json")  # fmt: skip
    finally:
        new = _migrate(("core", "0002_idempotency_records_commit_with_their_work"))
    kept = new.get_model("core", "IdempotencyRecord").objects.all()
    assert [(r.key, r.response_status, r.response_body) for r in kept] == [("done", 201, {"id": "r"})]
