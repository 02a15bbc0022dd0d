"""core/shapes.py: an answer is declared once, and both what is sent and what /api/schema/ says come
from that declaration. The last test calls every operation of the served schema that answers JSON
(for a player and for a partner) and checks each answer against its schema made strict: every
field the schema declares is there, and no other, so a field added to the answer and not to the
schema (or the other way round) fails."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Literal

import jsonschema
import pytest
from rest_framework import serializers

from accounts.services import partner_create
from accounts.tokens import token_issue
from casino.engine.war import StealView
from core.shapes import ABSENT, page_of, schema_of, shape, shape_field, wire
from tests.casino.helpers import PartnerClient, set_next_round
from tests.casino.services.test_matches import steal_seed
from tests.factories import make_player


@shape
class CardShape:
    code: str


@shape
class ExampleShape:
    id: str
    raise_: int = shape_field("The raise.", name="raise")
    seen_at: datetime | None
    kind: Literal["a", "b"]
    card: CardShape | None
    cards: list[CardShape]
    note: str = shape_field(default=ABSENT)
    link: str = shape_field(url=True, default=ABSENT)


MOMENT = datetime(2026, 12, 4, 18, 30, 1, 250000, tzinfo=UTC)


def test_the_wire_answer_is_the_declared_fields_under_their_names():
    example = ExampleShape(id="1", raise_=5, seen_at=MOMENT, kind="a", card=None, cards=[CardShape(code="AS")])
    assert wire(example) == {
        "id": "1",
        "raise": 5,
        "seen_at": "2026-12-04T18:30:01.250000Z",
        "kind": "a",
        "card": None,
        "cards": [{"code": "AS"}],
    }
    assert (
        wire(
            ExampleShape(id="1", raise_=0, seen_at=None, kind="b", card=CardShape(code="2H"), cards=[], note="left in")
        )["note"]
        == "left in"
    )


def test_an_answer_with_a_field_missing_or_undeclared_is_not_made():
    with pytest.raises(TypeError):
        ExampleShape(id="1", raise_=5, seen_at=None, kind="a", card=None)  # no cards
    with pytest.raises(TypeError):
        ExampleShape(id="1", raise_=5, seen_at=None, kind="a", card=None, cards=[], extra=1)
    with pytest.raises(TypeError):
        CardShape("AS")  # by keyword only: a field moved in the declaration cannot swap two values


def test_the_schema_is_read_from_the_same_declaration():
    serializer = schema_of(ExampleShape)
    assert serializer.__name__ == "ExampleSerializer"  # the component: the class's name without Shape
    fields = serializer().fields
    assert list(fields) == ["id", "raise", "seen_at", "kind", "card", "cards", "note", "link"]
    assert isinstance(fields["raise"], serializers.IntegerField) and fields["raise"].help_text == "The raise."
    assert isinstance(fields["seen_at"], serializers.DateTimeField) and fields["seen_at"].allow_null
    assert list(fields["kind"].choices) == ["a", "b"]
    assert fields["card"].__class__.__name__ == "CardSerializer" and fields["card"].allow_null
    assert isinstance(fields["cards"], serializers.ListSerializer)
    assert not fields["note"].required and fields["id"].required
    assert isinstance(fields["link"], serializers.URLField)
    page = schema_of(page_of(ExampleShape))
    assert page.__name__ == "ExamplePageSerializer" and page.is_page
    assert list(page().fields) == ["count", "next", "previous", "results"]


# --- Every operation's answer against its schema ---------------------------------------------------


def _strict(node):
    """The OpenAPI 3.0 schema as JSON Schema that takes no field it does not declare."""
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _strict(value) for key, value in node.items()}
    if node.pop("nullable", False) and "type" in node:
        node["type"] = [node["type"], "null"]
    if node.get("type") == "object" and "properties" in node:
        node.setdefault("additionalProperties", False)
    return node


class Answers:
    """Calls the API and keeps each answer with the operation (method, schema path) it answers."""

    def __init__(self, client, served):
        self.client, self.served, self.seen = client, served, []

    def call(self, caller, method: str, template: str, data=None, expect: int = 200, **params):
        path = template.format(**params)
        if isinstance(caller, PartnerClient):
            response = caller.request(method.upper(), path, data, HTTP_IDEMPOTENCY_KEY=f"k-{len(self.seen)}")
        else:
            call = getattr(self.client, method)
            body = {} if data is None else {"data": json.dumps(data), "content_type": "application/json"}
            response = call(path, **body, HTTP_IDEMPOTENCY_KEY=f"k-{len(self.seen)}", **caller)
        assert response.status_code == expect, (method, path, response.content[:500])
        self.seen.append((method, template, str(response.status_code), response))
        return response.json() if response.content else None

    def check(self):
        components = _strict(self.served["components"])
        for method, template, status, response in self.seen:
            declared = self.served["paths"][template][method]["responses"][status]
            media = response["Content-Type"].split(";")[0]
            schema = {**_strict(declared["content"][media]["schema"]), "components": components}
            jsonschema.Draft202012Validator(schema).validate(response.json())


@pytest.mark.django_db
def test_every_operation_answers_exactly_its_declared_shape(client, table):
    served = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    answers = Answers(client, served)
    player = make_player(balance=1_000_000, username="shaper")
    player.user.set_password("the-password-1")
    player.user.save()
    me = {"HTTP_AUTHORIZATION": f"Token {token_issue(user=player.user)}"}
    partner, secret = partner_create(name="Shape Casino")
    signed = PartnerClient(client, partner, secret)
    call = answers.call

    call({}, "get", "/api/v1/tables/")
    call({}, "get", "/api/v1/war/presets/")
    call({}, "post", "/api/v1/players/", {"username": "newcomer", "password": "a long pass phrase 7"}, expect=201)
    call({}, "post", "/api/v1/auth/token/", {"username": "newcomer", "password": "a long pass phrase 7"})
    call({}, "post", "/api/v1/auth/session/", {"username": "newcomer", "password": "a long pass phrase 7"})
    client.logout()
    match = call(me, "post", "/api/v1/matches/", {"preset": "classic"}, expect=201)
    call(me, "get", "/api/v1/matches/{match_id}/", match_id=match["id"])
    steal = call(
        me,
        "post",
        "/api/v1/matches/",
        {"preset": "steal", "server_seed": steal_seed(StealView), "human_seat": 0},
        expect=201,
    )
    call(
        me,
        "post",
        "/api/v1/matches/{match_id}/decision/",
        {"steal": steal["pending"]["targets"][0]},
        match_id=steal["id"],
    )
    call({}, "get", "/api/v1/matches/{match_id}/", expect=404, match_id=steal["id"])  # a problem, as declared too

    call(
        signed, "put", "/api/v1/partner/players/{external_id}/", {"currency": "EUR"}, expect=201, external_id="shape-1"
    )
    call(
        signed,
        "post",
        "/api/v1/partner/players/{external_id}/transfers/",
        {"direction": "in", "amount": 50_000, "reference": "in-1"},
        expect=201,
        external_id="shape-1",
    )
    call(signed, "get", "/api/v1/partner/players/{external_id}/transfers/", external_id="shape-1")
    call(signed, "get", "/api/v1/partner/transfers/")
    call(signed, "post", "/api/v1/partner/players/{external_id}/sessions/", {}, expect=201, external_id="shape-1")
    call(signed, "post", "/api/v1/partner/sessions/demo/", {"table": str(table.pk)}, expect=201)

    partner_player = player.__class__.objects.get(external_id="shape-1")
    for caller, prefix, who in (
        (me, "/api/v1/", player),
        (signed, "/api/v1/partner/players/{external_id}/", partner_player),
    ):
        params = {"external_id": "shape-1"} if caller is signed else {}
        call(caller, "get", prefix + "wallet/", **params)
        call(caller, "get", prefix + "fairness/", **params)
        call(caller, "post", prefix + "fairness/rotate/", {"client_seed": "mine"}, **params)
        set_next_round(who, tie=False, player_wins=True)
        call(caller, "post", prefix + "rounds/", {"table": str(table.pk), "main_bet": 1_000}, expect=201, **params)
        set_next_round(who, tie=True)
        tie = call(
            caller,
            "post",
            prefix + "rounds/",
            {"table": table.pk, "main_bet": 1_000, "tie_bet": 100},
            expect=201,
            **params,
        )
        call(caller, "get", prefix + "rounds/{round_id}/", round_id=tie["id"], **params)
        call(caller, "post", prefix + "rounds/{round_id}/decision/", {"action": "war"}, round_id=tie["id"], **params)
        call(caller, "get", prefix + "rounds/", **params)
        call(caller, "get", prefix + "wallet/transactions/", **params)
        call(
            caller, "put", prefix + "protection/limits/", {"kind": "wager", "period": "day", "amount": 90_000}, **params
        )
        higher = {"kind": "wager", "period": "day", "amount": 95_000}  # pending for 24 hours
        call(caller, "put", prefix + "protection/limits/", higher, **params)
        call(caller, "put", prefix + "protection/reality-check/", {"interval_minutes": 30}, **params)
        call(caller, "get", prefix + "protection/session/", **params)
        call(caller, "get", prefix + "protection/", **params)
    params = {"external_id": "shape-1"}
    call(
        signed,
        "post",
        "/api/v1/partner/players/{external_id}/protection/exclusions/",
        {"kind": "timeout", "days": 1},
        expect=201,
        **params,
    )
    call(signed, "get", "/api/v1/partner/players/{external_id}/protection/", **params)  # with its exclusion
    changed = {"old_password": "the-password-1", "new_password": "an other long one 8"}
    me = {"HTTP_AUTHORIZATION": f"Token {call(me, 'post', '/api/v1/auth/password/', changed)['token']}"}
    call(me, "post", "/api/v1/protection/exclusions/", {"kind": "timeout", "days": 1}, expect=201)
    call(signed, "put", "/api/v1/partner/players/{external_id}/", {"currency": "EUR"}, external_id="shape-1")

    answers.check()
    json_operations = {
        (method, path, status)
        for path, item in served["paths"].items()
        for method, operation in item.items()
        for status, response in operation["responses"].items()
        if status.startswith("2") and "application/json" in response.get("content", {})
    }
    assert json_operations <= {(method, template, status) for method, template, status, _ in answers.seen}
