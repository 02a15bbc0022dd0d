"""Standard client generators read the served schema, and their clients play a round.

openapi-python-client (pinned in requirements-dev.lock, works offline) generates a client from
/api/schema/ into a temporary folder; every generated module imports, and the client signs up,
gets a token, reads the tables and the wallet, places a round with an Idempotency-Key, decides
the tie, reads the round list and the wallet's lines, and signs out: no hand-written HTTP. The client talks
to the service in-process (httpx's WSGI transport). Its models are one class per schema
component: no `...Type1`/`...Type2Type1` copies of a nullable enum.

openapi-typescript (with openapi-fetch and TypeScript, from the npm registry, pinned by
tests/config/typescript_client/package-lock.json) generates the types of the same schema; a
TypeScript program written against them (round.ts: an optional `tie_bet` left out, nullable fields
read as `T | null`) compiles with `tsc --strict` and plays a round against the live server.
"""

import enum
import fcntl
import importlib
import json
import pkgutil
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
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
    config.write_text(
        "project_name_override: casino_war_client\npackage_name_override: casino_war_client\npost_hooks: []\n"
    )
    out = tmp_path / "casino_war_client"
    subprocess.run(
        [GENERATOR, "generate", "--path", schema, "--output-path", out, "--meta", "none", "--config", config],
        check=True,
        capture_output=True,
        timeout=120,
    )
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
    # One class per component: a nullable enum or object is its component or None, not copies.
    assert [name for name in models.__all__ if re.search(r"Type\d", name)] == []
    enums = [cls for cls in vars(models).values() if isinstance(cls, type) and issubclass(cls, enum.Enum)]
    members = Counter(tuple(sorted(member.value for member in cls)) for cls in enums)
    assert [values for values, count in members.items() if count > 1] == []
    Client = generated.Client
    AuthenticatedClient = generated.AuthenticatedClient

    anonymous = Client(**in_process)
    signed_up = api("v1_players_create").sync_detailed(
        client=anonymous, body=models.SignupRequest(username="generated", password="a-long-pass-phrase")
    )
    assert signed_up.status_code == 201 and signed_up.parsed.username == "generated"
    token = (
        api("v1_auth_token_create")
        .sync(client=anonymous, body=models.CredentialsRequest(username="generated", password="a-long-pass-phrase"))
        .token
    )
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
        client=me,
        round_id=round_.id,
        body=models.DecisionRequest(action=models.DecisionActionEnum.WAR),
        idempotency_key="gen-2",
    )
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


# --- TypeScript: openapi-typescript and openapi-fetch -----------------------------------------------

CLIENT_SOURCES = Path(__file__).resolve().parent / "typescript_client"  # package.json, its lock, round.ts
TOOLS = Path(__file__).resolve().parents[2] / "var" / "typescript-client"  # node_modules, once per lock


@pytest.fixture(scope="module")
def typescript_tools():
    """openapi-typescript, openapi-fetch and TypeScript, pinned by the committed package-lock.json,
    installed from the npm registry into var/typescript-client/ (again only when the lock changes)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("the TypeScript client needs npm (Node.js): not on this machine, so it is not tested")
    TOOLS.mkdir(parents=True, exist_ok=True)
    lock = (CLIENT_SOURCES / "package-lock.json").read_bytes()
    with open(TOOLS / ".lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)  # one install at a time (other workers, other runs)
        installed = TOOLS / "node_modules" / ".installed-lock.json"
        if not installed.exists() or installed.read_bytes() != lock:
            for name in ("package.json", "package-lock.json"):
                shutil.copy(CLIENT_SOURCES / name, TOOLS / name)
            subprocess.run(
                [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel", "error"],
                cwd=TOOLS,
                check=True,
                capture_output=True,
                timeout=600,
            )
            installed.write_bytes(lock)
    return TOOLS


def test_a_generated_typescript_client_plays_a_round(typescript_tools, client, live_server, transactional_db):
    from django.contrib.auth import get_user_model

    from tests.factories import TableFactory, make_player

    work = Path(tempfile.mkdtemp(prefix="run-", dir=typescript_tools))  # beside node_modules
    try:
        schema = work / "schema.json"
        schema.write_bytes(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
        bin_ = typescript_tools / "node_modules" / ".bin"
        generated = subprocess.run(
            [bin_ / "openapi-typescript", schema, "-o", work / "schema.d.ts"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert generated.returncode == 0, generated.stderr
        shutil.copy(CLIENT_SOURCES / "round.ts", work / "round.ts")
        compiled = subprocess.run(
            [
                bin_ / "tsc",
                "--strict",
                "--noEmit",
                "false",
                "--target",
                "es2022",
                "--lib",
                "es2022,dom",
                "--module",
                "nodenext",
                "--moduleResolution",
                "nodenext",
                "--skipLibCheck",
                "--outDir",
                work / "out",
                work / "round.ts",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=work,
        )
        assert compiled.returncode == 0, compiled.stdout + compiled.stderr  # the generated types fit the calls

        table = TableFactory(name="TypeScript EUR")
        player = make_player(balance=100_000, username="typed")
        user = get_user_model().objects.get(pk=player.user_id)
        user.set_password("a-typed-pass-phrase")
        user.save()
        set_next_round(player, tie=True)
        ran = subprocess.run(
            ["node", work / "out" / "round.js", live_server.url, "typed", "a-typed-pass-phrase", str(table.pk)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 0, ran.stderr
        seen = json.loads(ran.stdout)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert seen["table"] == "TypeScript EUR" and seen["before"] == 100_000
    assert (seen["placed"], seen["status"], seen["undecided"], seen["no_war_yet"]) == (
        201,
        "awaiting_decision",
        None,
        True,
    )
    assert (seen["decided"], seen["decision"], seen["raise"]) == (200, "war", 1000) and seen["war_player_card"]
    assert len(seen["listed"]) == 1 and seen["line_kinds"][-1] == "deposit"
    assert (seen["refused"], seen["refused_code"]) == (422, "bet_out_of_limits")
    assert (seen["signed_out"], seen["afterwards"]) == (204, 401)
