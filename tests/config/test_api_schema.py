"""The served schema (/api/schema/) says exactly what is served, for players and for partners.

Schemathesis generates requests from it for every operation (valid ones, invalid ones, and the
coverage of each field's edges) and runs every check on each answer: no server error, every
status, content type, header and body as documented, invalid data refused, valid data accepted,
authentication enforced, methods not in the schema 405. Partner requests are signed like a
partner signs them. Derandomized, so every run sends the same requests.
"""

import io
import secrets
import time

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from accounts.partners import request_signature
from accounts.services import partner_create
from accounts.tokens import token_issue
from config.wsgi import application
from tests.factories import TableFactory, make_player

FUZZ_PLAYER = "fuzz-player"  # the partner's player every partner operation acts for
# A request can have the shape the schema declares and still be refused by a rule of the game or
# of the accounts that no JSON Schema can state; those operations may answer 400 to valid data:
BUSINESS_400 = {
    "/api/v1/players/": "sign-up: a password too common or too like the name, a name taken or of other characters",
    "/api/v1/auth/token/": "sign-in: credentials no account has are invalid_credentials",
    "/api/v1/auth/session/": "sign-in: credentials no account has are invalid_credentials",
    "/api/v1/auth/password/": "the current password must be right and the new one hard to guess (zxcvbn)",
    "/api/v1/rounds/": "a table id no table has is unknown_table (API.md)",
    "/api/v1/matches/": "the rule book refuses some combinations of a preset's options",
    "/api/v1/protection/exclusions/": "a time-out needs `days`, a self-exclusion `months`",
    "/api/v1/protection/reality-check/": "an interval is 0 or 10 to 480 minutes",
    "/api/v1/sessions/": "a game launch: a table id no table has is unknown_table, a lobby_url an https URL",
    "/api/v1/partner/sessions/demo/": "a demo launch: a table id no table has is unknown_table, a lobby_url an https URL",
}
CONFIG = {
    "generation": {
        "max-examples": 8,
        "deterministic": True,
        "allow-x00": True,
        "codec": "utf-8",
        # The API ignores query parameters it does not know (proxies and caches add some), so an
        # unknown one is not invalid data.
        "allow-extra-parameters": False,
    },
    "phases": {"stateful": {"enabled": False}},
    "parameters": {"path.external_id": FUZZ_PLAYER},
    "checks": {
        "enabled": True,
        "positive_data_acceptance": {"expected-statuses": ["2xx", "401", "403", "404", "409", "422", "429"]},
    },
    "operations": [
        {
            "include-path-regex": f"^{path.replace('/api/v1/', '/api/v1/(partner/players/[^/]+/)?')}$",
            "checks": {
                "positive_data_acceptance": {
                    "expected-statuses": ["2xx", "400", "401", "403", "404", "409", "422", "429"]
                }
            },
        }
        for path in BUSINESS_400
    ],
}


class PartnerSigner:
    """In front of the service, a partner's signing client: a request that names the fuzzing
    partner's key gets a fresh timestamp, nonce and signature over exactly the bytes sent. A
    request without that key (schemathesis' probes of missing or wrong credentials) goes as is."""

    key_id = secret = None

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        # The in-process client does not undo gzip as an HTTP client would: ask for plain bodies.
        environ.pop("HTTP_ACCEPT_ENCODING", None)
        if self.key_id and environ.get("HTTP_X_PARTNER_KEY") == self.key_id:
            length = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(length) if length else b""
            environ["wsgi.input"] = io.BytesIO(body)
            query = environ.get("QUERY_STRING", "")
            path = environ.get("SCRIPT_NAME", "") + environ["PATH_INFO"].encode("latin-1").decode("utf-8", "replace")
            timestamp, nonce = str(int(time.time())), secrets.token_hex(8)
            environ["HTTP_X_TIMESTAMP"], environ["HTTP_X_NONCE"] = timestamp, nonce
            environ["HTTP_X_SIGNATURE"] = request_signature(
                secret=self.secret,
                timestamp=timestamp,
                nonce=nonce,
                method=environ["REQUEST_METHOD"],
                path=f"{path}?{query}" if query else path,
                body=body,
            )
        return self.app(environ, start_response)


signer = PartnerSigner(application)
schema = schemathesis.openapi.from_wsgi("/api/schema/", signer, config=SchemathesisConfig.from_dict(CONFIG))


@pytest.fixture
def callers(db):
    # As Django's test client does: keep the test's connection (and its transaction) open across requests.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    TableFactory(name="Fuzz EUR")
    player = make_player(balance=1_000_000, username="fuzzer")
    partner, signer.secret = partner_create(name="Fuzz Casino")
    signer.key_id = partner.key_id
    make_player(balance=1_000_000, username="p-fuzz", partner=partner, external_id=FUZZ_PLAYER)
    yield {"token": token_issue(user=player.user), "partner_key": partner.key_id}
    signer.key_id = signer.secret = None
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_the_api_serves_what_its_schema_says(case, callers):
    if "/partner/" in case.operation.path:
        headers = {"X-Partner-Key": callers["partner_key"]}
    else:
        headers = {"Authorization": f"Token {callers['token']}"}
    case.call_and_validate(headers=headers)


# The same operations for a seamless partner's player: its stakes are debited from, and its
# payouts credited to, the partner's wallet (a real one on this machine, tests/wallet_server.py),
# and its balance is the wallet's. Transfers are `not_a_transfer_wallet` (422) for it.
seamless_signer = PartnerSigner(application)
seamless_schema = schemathesis.openapi.from_wsgi(
    "/api/schema/", seamless_signer, config=SchemathesisConfig.from_dict(CONFIG)
)


@pytest.fixture
def seamless_caller(db, wallet):
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    TableFactory(name="Fuzz EUR")
    partner, _ = partner_create(name="Seamless Fuzz Casino", wallet_url=wallet.url)
    partner.secret = seamless_signer.secret = wallet.secret
    partner.save(update_fields=["secret"])
    seamless_signer.key_id = partner.key_id
    make_player(username="p-seamless-fuzz", partner=partner, external_id=FUZZ_PLAYER)
    wallet.set_balance(player=FUZZ_PLAYER, currency="EUR", amount=10_000_000)
    yield partner.key_id
    seamless_signer.key_id = seamless_signer.secret = None
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.django_db
@seamless_schema.parametrize()
@settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_a_seamless_partner_gets_what_the_schema_says(case, seamless_caller):
    if "/partner/" not in case.operation.path:
        return  # a player's own endpoints: the first test's (the schema's filters do not reach a second schema)
    case.call_and_validate(headers={"X-Partner-Key": seamless_caller})


@pytest.fixture
def served(client):
    return client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()


def operations(served):
    for path, item in served["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def test_the_api_takes_json_only_and_answers_problems_as_problem_json(served):
    for path, method, operation in operations(served):
        if "requestBody" in operation:
            assert set(operation["requestBody"]["content"]) == {"application/json"}, (method, path)
            assert "415" in operation["responses"], (method, path)
        for status, response in operation["responses"].items():
            if status.startswith(("4", "5")):
                assert set(response["content"]) == {"application/problem+json"}, (method, path, status)


@pytest.mark.parametrize(
    ("path", "page"), [("/api/v1/rounds/", "RoundPage"), ("/api/v1/wallet/transactions/", "WalletLinePage")]
)
def test_lists_are_documented_as_the_pages_they_are(served, path, page):
    operation = served["paths"][path]["get"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": f"#/components/schemas/{page}"
    }
    shape = served["components"]["schemas"][page]
    assert set(shape["properties"]) == {"count", "next", "previous", "results"} == set(shape["required"])
    assert shape["properties"]["next"] == {
        "type": "string",
        "format": "uri",
        "nullable": True,
        "description": "The next page, if any.",
    }
    limit, offset = (next(p for p in operation["parameters"] if p["name"] == name) for name in ("limit", "offset"))
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 500} and offset["in"] == "query"


def test_idempotency_keys_usernames_and_the_token_scheme_are_documented(served):
    key = next(p for p in served["paths"]["/api/v1/rounds/"]["post"]["parameters"] if p["name"] == "Idempotency-Key")
    assert key["in"] == "header" and key["required"] and key["schema"]["maxLength"] == 255
    username = served["components"]["schemas"]["SignupRequest"]["properties"]["username"]
    assert (
        username["minLength"] == 3
        and username["maxLength"] == 150
        and "reads like one taken" in username["description"]
    )
    token = served["components"]["securitySchemes"]["tokenAuth"]
    assert token["type"] == "apiKey" and token["in"] == "header" and token["name"] == "Authorization"
    assert "Token <token>" in token["description"]


def test_nullable_fields_carry_their_type_for_strict_openapi_3_0(served):
    def walk(node, where):
        if isinstance(node, dict):
            if node.get("nullable"):
                assert "type" in node, where  # OpenAPI 3.0.3: nullable means nothing without a type
                if "enum" in node:
                    assert None in node["enum"], where
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for n, value in enumerate(node):
                walk(value, f"{where}[{n}]")

    walk(served, "schema")
    assert "NullEnum" not in served["components"]["schemas"]
    # A nullable object or enum is its component or null alone: generators make one class of it.
    components = served["components"]["schemas"]
    war, decision = (components["Round"]["properties"][name]["oneOf"] for name in ("war", "decision"))
    assert set(components[war[0]["$ref"].rsplit("/", 1)[1]]["properties"]) == {"player_card", "dealer_card"}
    assert war[1] == {"type": "object", "nullable": True, "enum": [None]}
    assert components[decision[0]["$ref"].rsplit("/", 1)[1]]["enum"] == ["war", "surrender"]
    assert decision[1] == {"type": "string", "nullable": True, "enum": [None]}


def test_a_requests_field_with_a_default_is_optional_and_says_its_default(served):
    tie_bet = served["components"]["schemas"]["RoundCreateRequest"]["properties"]["tie_bet"]
    assert "default" not in tie_bet and tie_bet["description"].endswith("Optional: 0 when left out.")
    assert "tie_bet" not in served["components"]["schemas"]["RoundCreateRequest"]["required"]
