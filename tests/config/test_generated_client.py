"""A standard client generator reads the served schema, and its client plays a round.

openapi-python-client (pinned in requirements-dev.lock, works offline) generates a client from
/api/schema/ into a temporary folder; every generated module imports, and the client signs up,
gets a token, reads the tables and the wallet, places a round with an Idempotency-Key, decides
the tie, reads the round list and the wallet's lines, and signs out: no hand-written HTTP. The client talks
to the service in-process (httpx's WSGI transport).
"""

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from accounts.models import Player
from config.wsgi import application
from core.actors import Actor
from ledger.services import wallet_deposit
from tests.casino.helpers import set_next_round

GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@pytest.fixture
def generated(tmp_path, client, monkeypatch):
    schema = tmp_path / "schema.json"
    schema.write_bytes(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    config = tmp_path / "generator.yaml"
    config.write_text("project_name_override: casino_war_client\npackage_name_override: casino_war_client\npost_hooks: []\n")
    out = tmp_path / "casino_war_client"
    subprocess.run(
        [GENERATOR, "generate", "--path", schema, "--output-path", out, "--meta", "none", "--config", config],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    package = importlib.import_module("casino_war_client")
    yield package
    for name in [name for name in sys.modules if name.startswith("casino_war_client")]:
        del sys.modules[name]


@pytest.fixture
def in_process(db):
    # As Django's test client does: keep the test's connection (and its transaction) across requests.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield {"base_url": "http://testserver", "httpx_args": {"transport": httpx.WSGITransport(app=application)}}
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.django_db
def test_a_generated_client_plays_a_round(generated, in_process, table):
    v1 = importlib.import_module("casino_war_client.api.v1")
    for module in pkgutil.iter_modules(v1.__path__):  # every operation generates importable code
        importlib.import_module(f"{v1.__name__}.{module.name}")
    api = lambda name: importlib.import_module(f"{v1.__name__}.{name}")  # noqa: E731
    models = importlib.import_module("casino_war_client.models")
    Client = generated.Client
    AuthenticatedClient = generated.AuthenticatedClient

    anonymous = Client(**in_process)
    signed_up = api("v1_players_create").sync_detailed(
        client=anonymous, body=models.SignupRequest(username="generated", password="a-long-pass-phrase")
    )
    assert signed_up.status_code == 201 and signed_up.parsed.username == "generated"
    token = api("v1_auth_token_create").sync(
        client=anonymous, body=models.CredentialsRequest(username="generated", password="a-long-pass-phrase")
    ).token
    player = Player.objects.get(user__username="generated")
    wallet_deposit(player=player, amount=100_000, idempotency_key="generated-funds", actor=Actor.system("tests"))
    me = AuthenticatedClient(token=token, prefix="Token", **in_process)

    (listed,) = api("v1_tables_list").sync(client=anonymous)
    assert listed.id == str(table.pk) and listed.rules.decks == 6
    assert api("v1_wallet_retrieve").sync(client=me).balance == 100_000

    set_next_round(player, tie=True)
    placed = api("v1_rounds_create").sync_detailed(
        client=me, body=models.RoundCreateRequest(table=listed.id, main_bet=1000), idempotency_key="gen-1"
    )
    assert placed.status_code == 201, placed.content
    round_ = placed.parsed
    assert round_.status == models.RoundStatusEnum.AWAITING_DECISION and round_.war is None and round_.net is None
    again = api("v1_rounds_create").sync_detailed(
        client=me, body=models.RoundCreateRequest(table=listed.id, main_bet=1000), idempotency_key="gen-1"
    )
    assert again.status_code == 201 and again.parsed.id == round_.id  # the same key replays the first answer

    decided = api("v1_rounds_decision_create").sync_detailed(
        client=me, round_id=round_.id, body=models.DecisionRequest(action=models.DecisionActionEnum.WAR),
        idempotency_key="gen-2",
    )  # fmt: skip
    assert decided.status_code == 200, decided.content
    assert decided.parsed.raise_ == 1000 and decided.parsed.war.player_card

    page = api("v1_rounds_list").sync(client=me, limit=10)
    assert page.count == 1 and page.results[0].id == round_.id and page.next_ is None
    lines = api("v1_wallet_transactions_list").sync(client=me, limit=10, offset=0)
    assert [line.kind for line in lines.results][-1] == "deposit" and lines.count == len(lines.results)

    refused = api("v1_rounds_create").sync_detailed(
        client=me, body=models.RoundCreateRequest(table=listed.id, main_bet=50), idempotency_key="gen-3"
    )
    assert refused.status_code == 422 and refused.parsed.code == "bet_out_of_limits"  # problems parse too

    assert api("v1_auth_token_destroy").sync_detailed(client=me).status_code == 204  # signed out: the token ends
    assert api("v1_wallet_retrieve").sync_detailed(client=me).status_code == 401
