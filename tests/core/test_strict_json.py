"""Strict JSON (core/parsers.py, core/api.py `validated`): an object that names a key twice, and a
field the request's shape does not declare, are a 400 naming the key, and nothing is created."""

import io

import pytest

from accounts.models import Transfer
from accounts.services import partner_create
from casino.models import Round
from core.errors import InvalidInput
from core.parsers import JsonParser
from ledger.models import JournalEntry
from tests.casino.api.test_player_api import assert_problem
from tests.casino.helpers import PartnerClient, sign

pytestmark = pytest.mark.django_db


def test_the_parser_refuses_a_key_named_twice_at_any_depth():
    parse = lambda body: JsonParser().parse(io.BytesIO(body), "application/json", {})  # noqa: E731
    assert parse(b'{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}
    for body in (b'{"main_bet": 100, "main_bet": 200}', b'{"x": [{"k": 1, "k": 1}]}'):
        with pytest.raises(InvalidInput) as refused:
            parse(body)
        assert "appears more than once" in refused.value.detail


def test_a_round_with_a_key_named_twice_is_refused_naming_it(player_client, table):
    body = f'{{"table": "{table.pk}", "main_bet": 100, "main_bet": 200}}'
    response = player_client.post(
        "/api/v1/rounds/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="twice"
    )
    assert_problem(response, 400, "invalid_input")
    assert "main_bet" in response.json()["detail"] and "main_bet" in response.json()["errors"]
    assert not Round.objects.exists()


def test_a_round_with_a_field_no_round_has_is_refused_naming_it(player_client, table):
    body = {"table": str(table.pk), "main_bet": 100, "foo": 1}
    response = player_client.post("/api/v1/rounds/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="foo")
    assert_problem(response, 400, "invalid_input")
    assert "foo" in response.json()["detail"] and list(response.json()["errors"]) == ["foo"]
    assert not Round.objects.exists()
    # a misspelt tie bet is not silently a round without one
    body = {"table": str(table.pk), "main_bet": 100, "tiebet": 100}
    response = player_client.post("/api/v1/rounds/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="t")
    assert_problem(response, 400, "invalid_input")
    assert not Round.objects.exists()


def test_a_transfer_with_a_currency_is_refused_and_moves_nothing(client):
    partner, secret = partner_create(name="Strict Casino")
    api = PartnerClient(client, partner, secret)
    api.put("/api/v1/partner/players/p-1/", {"currency": "EUR"})
    entries = JournalEntry.objects.count()
    response = api.post(
        "/api/v1/partner/players/p-1/transfers/",
        {"direction": "in", "amount": 5000, "reference": "r-1", "currency": "USD"},
        HTTP_IDEMPOTENCY_KEY="with-currency",
    )
    assert_problem(response, 400, "invalid_input")
    assert "currency" in response.json()["errors"]
    assert not Transfer.objects.exists() and JournalEntry.objects.count() == entries


def test_a_signed_partner_body_with_a_key_named_twice_is_refused(client):
    partner, secret = partner_create(name="Twice Casino")
    path = "/api/v1/partner/players/p-2/"
    body = b'{"currency": "EUR", "currency": "USD"}'
    response = client.put(path, data=body, content_type="application/json", **sign(partner, secret, "PUT", path, body))
    assert_problem(response, 400, "invalid_input")
    assert "currency" in response.json()["detail"]


def test_a_key_no_text_can_show_is_named_as_json_writes_it(player_client, table):
    body = f'{{"table": "{table.pk}", "main_bet": 100, "\\ud800": 1, "\\ud800": 2}}'
    response = player_client.post("/api/v1/rounds/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="s")
    assert_problem(response, 400, "invalid_input")
    assert "\\ud800" in response.json()["detail"]


def test_the_schema_says_request_bodies_take_no_other_field(client):
    schema = client.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    assert components["RoundCreateRequest"]["additionalProperties"] is False
    assert components["TransferCreateRequest"]["additionalProperties"] is False


def test_the_schema_is_generated_once_per_language_and_throttled(client, throttle_rates):
    from unittest import mock

    from drf_spectacular.generators import SchemaGenerator

    from core.schema_view import SchemaView

    SchemaView._generated.clear()
    with mock.patch.object(
        SchemaGenerator, "get_schema", autospec=True, side_effect=SchemaGenerator.get_schema
    ) as made:
        first = client.get("/api/schema/?format=json")
        again = client.get("/api/schema/?format=json")
        spanish = client.get("/api/schema/?format=json&lang=es")
    assert first.content == again.content and spanish.status_code == 200 and made.call_count == 2
    throttle_rates.update(anon="2/min")
    assert [client.get("/api/schema/").status_code for _ in range(3)] == [200, 200, 429]
