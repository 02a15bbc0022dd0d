"""The player endpoints of API.md, every field and every error code."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
from accounts.partners import partner_player_upsert
from accounts.services import partner_create
from accounts.tokens import token_issue
from casino.models import Round, RoundStatus
from core.actors import Actor
from core.models import RequestNonce
from ledger.selectors import player_wallet_summary
from ledger.services import wallet_deposit
from ledger.verification import ledger_verify
from tests.casino.helpers import PartnerClient, set_next_round
from tests.factories import TableFactory, make_player

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"


def place(client, table, main=1000, tie=0, key="k1", **extra):
    body = {"table": str(table.pk), "main_bet": main, **({"tie_bet": tie} if tie is not None else {}), **extra}
    return client.post("/api/v1/rounds/", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY=key)


def decide(client, round_id, action, key="d1"):
    return client.post(
        f"/api/v1/rounds/{round_id}/decision/",
        {"action": action},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def assert_problem(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == code and body["status"] == status and body["title"] and body["detail"] and body["type"]


# --- tables -------------------------------------------------------------------------------------------


def test_tables_are_public_with_rules_and_exact_house_edge(client, table):
    TableFactory(name="Closed", is_open=False)
    (row,) = client.get("/api/v1/tables/").json()
    assert row == {
        "id": str(table.pk),
        "name": "Test EUR",
        "currency": "EUR",
        "min_bet": 100,
        "max_bet": 100_000,
        "bet_step": 100,
        "max_tie_bet": 10_000,
        "rules": {
            "decks": 6,
            "burn": 3,
            "tie_pays": 10,
            "tie_after_tie_bonus": False,
            "shuffle": "fresh",
            "decision_timeout_s": 30,
        },
        "house_edge": {
            "war": pytest.approx(0.0287713376, abs=1e-9),
            "surrender": pytest.approx(0.0369774920, abs=1e-9),
            "tie_bet": pytest.approx(0.1864951768, abs=1e-9),
        },
    }


# --- rounds --------------------------------------------------------------------------------------------


def test_a_round_without_a_tie_resolves_and_settles(player_client, player, table, django_capture_on_commit_callbacks):
    cards = set_next_round(player, tie=False, player_wins=True)
    with django_capture_on_commit_callbacks(execute=True):
        response = place(player_client, table, main=1000, tie=100)
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "resolved" and body["outcome"] == "win"
    assert (body["player_card"], body["dealer_card"]) == (cards[0], cards[1])
    assert body["net"] == 900 and body["payout"] == 2000 and body["raise"] == 0 and body["war"] is None
    assert body["fairness"]["nonce"] == 0 and len(body["fairness"]["server_seed_hash"]) == 64
    assert set(body) >= {
        "id",
        "table",
        "status",
        "main_bet",
        "tie_bet",
        "raise",
        "player_card",
        "dealer_card",
        "decision",
        "war",
        "outcome",
        "net",
        "payout",
        "fairness",
        "created_at",
        "resolved_at",
        "settled_at",
    }
    settled = player_client.get(f"/api/v1/rounds/{body['id']}/").json()
    assert settled["status"] == "settled" and settled["settled_at"]
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 100_900, "in_play": 0}


def test_a_tie_waits_then_war_stakes_the_raise_and_settles(
    player_client, player, table, django_capture_on_commit_callbacks
):
    cards = set_next_round(player, tie=True, player_wins=True)
    body = place(player_client, table, main=1000, tie=100).json()
    assert body["status"] == "awaiting_decision" and body["outcome"] is None and body["net"] is None
    assert body["decision_values"]["surrender"] == -0.5 and body["decision_values"]["war"] < 0
    assert player_wallet_summary(player=player) == {"currency": "EUR", "balance": 98_900, "in_play": 1_100}
    # A reconnecting player finds the decision unchanged.
    assert player_client.get(f"/api/v1/rounds/{body['id']}/").json()["status"] == "awaiting_decision"
    with django_capture_on_commit_callbacks(execute=True):
        decided = decide(player_client, body["id"], "war").json()
    assert decided["decision"] == "war" and decided["raise"] == 1000
    assert decided["war"] == {"player_card": cards[5], "dealer_card": cards[6]}
    assert decided["outcome"] in ("war_win", "war_tie") and decided["net"] == 1000 + 1000  # raise won, tie bet 10:1
    assert player_wallet_summary(player=player)["balance"] == 100_000 + 2_000
    round_ = Round.objects.get(pk=body["id"])
    assert round_.decided_by_type == "player" and round_.decided_at is not None and not round_.decision_timed_out
    assert ledger_verify().ok


def test_surrender_returns_half(player_client, player, table, django_capture_on_commit_callbacks):
    set_next_round(player, tie=True)
    body = place(player_client, table, main=1000).json()
    with django_capture_on_commit_callbacks(execute=True):
        decided = decide(player_client, body["id"], "surrender").json()
    assert decided["outcome"] == "surrender" and decided["net"] == -500 and decided["payout"] == 500
    assert player_wallet_summary(player=player)["balance"] == 99_500


def test_a_decision_on_a_round_not_waiting_is_409(player_client, player, table):
    set_next_round(player, tie=False)
    body = place(player_client, table).json()
    assert_problem(decide(player_client, body["id"], "war"), 409, "round_not_awaiting_decision")


def test_going_to_war_without_the_raise_is_insufficient_funds_and_the_round_still_waits(client, table):
    poor = make_player(balance=1000, username="poor")
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {token_issue(user=poor.user)}"
    set_next_round(poor, tie=True)
    body = place(client, table, main=1000).json()
    assert_problem(decide(client, body["id"], "war"), 422, "insufficient_funds")
    assert client.get(f"/api/v1/rounds/{body['id']}/").json()["status"] == "awaiting_decision"
    assert decide(client, body["id"], "surrender", key="d2").status_code == 200


@pytest.mark.parametrize("action", ["double", None, 1])
def test_an_unknown_action_is_400(player_client, player, table, action):
    set_next_round(player, tie=True)
    body = place(player_client, table).json()
    assert_problem(decide(player_client, body["id"], action), 400, "invalid_input")


@pytest.mark.parametrize("main", [10.5, "1000", -100, 0, True, None])
def test_invalid_amounts_are_400(player_client, table, main):
    assert_problem(place(player_client, table, main=main), 400, "invalid_amount")


@pytest.mark.parametrize("tie", [10.0, "100", -100])
def test_invalid_tie_amounts_are_400(player_client, table, tie):
    assert_problem(place(player_client, table, tie=tie), 400, "invalid_amount")


@pytest.mark.parametrize(("main", "tie"), [(50, 0), (150, 0), (200_000, 0), (1000, 150), (1000, 20_000)])
def test_bets_off_the_table_are_422(player_client, table, main, tie):
    assert_problem(place(player_client, table, main=main, tie=tie), 422, "bet_out_of_limits")


@pytest.mark.parametrize(
    "table_id", ["999999", "x", None, True, " 1 ", "\uff11", "1.0", 1.0, "+1", "01", [1], {"id": 1}]
)
def test_an_unknown_table_is_400(player_client, table_id):
    """Only the table's id itself places a round on it: not true, " 1 " or a full-width "1"."""
    response = player_client.post(
        "/api/v1/rounds/",
        {"table": table_id, "main_bet": 1000},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="u",
    )
    assert_problem(response, 400, "unknown_table")


def test_the_table_id_is_its_string_or_the_same_json_integer(player_client, player, table):
    for n, table_id in enumerate([str(table.pk), table.pk]):
        set_next_round(player, tie=False)
        response = player_client.post(
            "/api/v1/rounds/",
            {"table": table_id, "main_bet": 1000},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=f"id-{n}",
        )
        assert response.status_code == 201 and response.json()["table"] == str(table.pk)


def test_a_closed_table_is_422(player_client, table):
    table.is_open = False
    table.save()
    assert_problem(place(player_client, table), 422, "table_closed")


def test_insufficient_funds_changes_nothing(player_client, player, table):
    poor_table = TableFactory(name="Big", min_bet=100, max_bet=1_000_000)
    before = player_wallet_summary(player=player)
    assert_problem(place(player_client, poor_table, main=200_000), 422, "insufficient_funds")
    assert player_wallet_summary(player=player) == before and not Round.objects.exists()
    assert player_client.get("/api/v1/fairness/").json()["nonce"] == 0  # the nonce was not used up


def test_another_currency_is_refused(player_client, table):
    usd = TableFactory(name="USD", currency="USD")
    assert_problem(place(player_client, usd), 422, "currency_mismatch")


def test_another_players_round_is_404(player_client, player, table, client):
    other = make_player(balance=10_000, username="mallory")
    set_next_round(other, tie=True)
    from casino.services.rounds import round_place
    from core.actors import Actor

    theirs = round_place(player=other, table_id=table.pk, main_bet=1000, actor=Actor.player(other))
    assert_problem(player_client.get(f"/api/v1/rounds/{theirs.id}/"), 404, "not_found")
    assert_problem(decide(player_client, theirs.id, "war"), 404, "not_found")
    assert_problem(player_client.get("/api/v1/rounds/not-a-uuid/"), 404, "not_found")


def test_round_history_and_wallet_lines_newest_first(player_client, player, table, django_capture_on_commit_callbacks):
    ids = []
    for n in range(3):
        set_next_round(player, tie=False)
        with django_capture_on_commit_callbacks(execute=True):
            ids.append(place(player_client, table, key=f"h{n}").json()["id"])
    listing = player_client.get("/api/v1/rounds/").json()
    assert listing["count"] == 3 and [r["id"] for r in listing["results"]] == ids[::-1]
    lines = player_client.get("/api/v1/wallet/transactions/").json()["results"]
    assert lines[0]["kind"] == "settlement" or lines[0]["kind"] == "stake"
    assert lines[-1]["kind"] == "deposit" and lines[-1]["round"] is None
    assert {line["round"] for line in lines if line["round"]} == set(ids)
    assert lines[0]["balance_after"] == player_wallet_summary(player=player)["balance"]
    assert set(lines[0]) == {"id", "kind", "amount", "balance_after", "round", "reference", "created_at"}
    assert {line["reference"] for line in lines} == {None}  # a partner's transfer reference, none here


# --- idempotency ---------------------------------------------------------------------------------------


def test_a_retry_returns_the_same_response_and_moves_no_money(player_client, player, table):
    set_next_round(player, tie=False)
    first = place(player_client, table, key="same")
    wallet = player_wallet_summary(player=player)
    again = place(player_client, table, key="same")
    assert again.status_code == first.status_code == 201 and again.json() == first.json()
    assert player_wallet_summary(player=player) == wallet and Round.objects.count() == 1


def test_a_refusal_is_replayed_too(player_client, table):
    first = place(player_client, table, main=50, key="bad")
    again = place(player_client, table, main=50, key="bad")
    assert again.status_code == first.status_code == 422 and again.json() == first.json()


REPLAYED_HEADERS = ("Content-Type", "Content-Language", "X-Request-ID")


def assert_replay_of(again, first):
    """API.md: a replay is the first answer's bytes and headers, with `Idempotent-Replayed: true`;
    the replaying request's own id beside the first one's."""
    assert again.status_code == first.status_code and again.content == first.content
    assert {h: again.get(h) for h in REPLAYED_HEADERS} == {h: first.get(h) for h in REPLAYED_HEADERS}
    assert again["Idempotent-Replayed"] == "true" and not first.has_header("Idempotent-Replayed")
    assert again["X-Replay-Request-ID"] not in ("", first["X-Request-ID"])
    assert not first.has_header("X-Replay-Request-ID")


def place_with(client, table, *, main=1000, key, **headers):
    return client.post(
        "/api/v1/rounds/",
        {"table": str(table.pk), "main_bet": main},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=key,
        **headers,
    )


def test_a_replay_is_the_first_answers_bytes_and_headers(player_client, player, table, caplog):
    set_next_round(player, tie=False)
    first = place_with(player_client, table, key="bytes", HTTP_X_REQUEST_ID="first-request")
    with caplog.at_level("INFO", logger="core.idempotency"):
        again = place_with(
            player_client, table, key="bytes", HTTP_X_REQUEST_ID="second-request", HTTP_ACCEPT_LANGUAGE="es"
        )
    assert first.status_code == 201 and first["X-Request-ID"] == "first-request"
    assert_replay_of(again, first)
    assert again["X-Replay-Request-ID"] == "second-request"
    replayed = [r for r in caplog.records if "replaying the first answer" in r.getMessage()]
    assert replayed and replayed[0].request_id == "second-request" and "first-request" in replayed[0].getMessage()


def test_a_replayed_refusal_is_its_bytes_in_the_first_requests_language(player_client, table):
    first = place_with(player_client, table, main=50, key="bad-es", HTTP_ACCEPT_LANGUAGE="es")
    again = place_with(player_client, table, main=50, key="bad-es", HTTP_ACCEPT_LANGUAGE="en")
    assert first.status_code == 422 and first["Content-Language"] == "es"
    assert_replay_of(again, first)
    assert again.json()["request_id"] == again["X-Request-ID"]  # the body and the header name the same request


def test_same_key_other_body_is_a_conflict(player_client, player, table):
    set_next_round(player, tie=False)
    place(player_client, table, main=1000, key="k")
    assert_problem(place(player_client, table, main=2000, key="k"), 422, "idempotency_conflict")


def test_missing_and_invalid_keys(player_client, table):
    response = player_client.post(
        "/api/v1/rounds/", {"table": str(table.pk), "main_bet": 1000}, content_type="application/json"
    )
    assert_problem(response, 400, "idempotency_key_required")
    assert_problem(place(player_client, table, key="ä"), 400, "idempotency_key_invalid")
    assert_problem(place(player_client, table, key="x" * 256), 400, "idempotency_key_invalid")


def test_a_retry_while_the_first_is_in_flight_is_409(player_client, player, table):
    import psycopg
    from django.db import connection

    from core.idempotency import idempotency_lock_id

    before = player_wallet_summary(player=player)
    settings = connection.settings_dict
    # The first request still running: its transaction holds the key's advisory lock.
    with psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        password=settings["PASSWORD"] or None,
        autocommit=True,
    ) as first:
        first.execute("SELECT pg_advisory_lock(%s)", [idempotency_lock_id(f"player:{player.pk}", "busy")])
        assert_problem(place(player_client, table, key="busy"), 409, "idempotency_in_flight")
    assert player_wallet_summary(player=player) == before
    set_next_round(player, tie=False)
    assert place(player_client, table, key="busy").status_code == 201  # the retry after it ends runs


def test_a_response_stored_meanwhile_wins_over_the_second_run(player_client, player, table, monkeypatch):
    """The first request commits between the retry's look and its own commit: the retry's work
    is rolled back (no money moves twice) and it is told to come back for the stored response."""
    from core import idempotency

    set_next_round(player, tie=False)
    first = place(player_client, table, key="race")
    after_first = player_wallet_summary(player=player)
    looked_too_early = idempotency.sql.Claim(True, None)
    monkeypatch.setattr(idempotency.sql, "idempotency_claimed", lambda row: looked_too_early)
    assert_problem(place(player_client, table, key="race"), 409, "idempotency_in_flight")
    assert player_wallet_summary(player=player) == after_first
    monkeypatch.undo()
    assert place(player_client, table, key="race").json() == first.json()


def test_keys_are_scoped_to_the_caller(player_client, player, table, client):
    other = make_player(balance=10_000, username="dave")
    set_next_round(player, tie=False)
    set_next_round(other, tie=False)
    mine = place(player_client, table, key="shared").json()
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {token_issue(user=other.user)}"
    theirs = place(client, table, key="shared").json()
    assert mine["id"] != theirs["id"]


# --- fairness ------------------------------------------------------------------------------------------


def test_rotation_reveals_the_seed_and_every_card_can_be_recomputed(player_client, player, table):
    from casino.engine import verify_round

    before = player_client.get("/api/v1/fairness/").json()
    assert before["previous"] is None and before["nonce"] == 0
    set_next_round(player, tie=False)
    round_ = place(player_client, table).json()
    rotated = player_client.post(
        "/api/v1/fairness/rotate/", {"client_seed": "my own seed"}, content_type="application/json"
    ).json()
    previous = rotated["previous"]
    assert previous["server_seed_hash"] == before["server_seed_hash"] and previous["last_nonce"] == 0
    assert (
        rotated["client_seed"] == "my own seed"
        and rotated["nonce"] == 0
        and rotated["server_seed_hash"] != before["server_seed_hash"]
    )
    check = verify_round(
        server_seed=previous["server_seed"],
        client_seed=previous["client_seed"],
        nonce=0,
        published_hash=before["server_seed_hash"],
    )
    assert check.hash_matches and (check.cards.player.code, check.cards.dealer.code) == (
        round_["player_card"],
        round_["dealer_card"],
    )


def test_rotation_is_refused_while_a_round_waits(player_client, player, table):
    set_next_round(player, tie=True)
    place(player_client, table)
    response = player_client.post("/api/v1/fairness/rotate/", {}, content_type="application/json")
    assert_problem(response, 409, "round_awaiting_decision")


@pytest.mark.parametrize("client_seed", ["x" * 65, "", None, 42, "a\x07b"])
def test_a_bad_client_seed_is_400(player_client, client_seed):
    before = player_client.get("/api/v1/fairness/").json()
    response = player_client.post(
        "/api/v1/fairness/rotate/", {"client_seed": client_seed}, content_type="application/json"
    )
    assert_problem(response, 400, "invalid_input")
    assert player_client.get("/api/v1/fairness/").json() == before  # nothing rotated


def test_the_round_status_after_settlement_is_settled(player, table):
    from casino.services.rounds import round_place
    from casino.services.settlement import rounds_settle_overdue
    from core.actors import Actor

    set_next_round(player, tie=False)
    round_ = round_place(player=player, table_id=table.pk, main_bet=1000, actor=Actor.player(player))
    assert round_.status == RoundStatus.RESOLVED
    assert rounds_settle_overdue(older_than_s=0) == 1
    round_.refresh_from_db()
    assert round_.status == RoundStatus.SETTLED


def test_callers_are_rate_limited(player_client, client, throttle_rates):
    throttle_rates.update(user="3/min", anon="2/min")
    statuses = [player_client.get("/api/v1/wallet/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = player_client.get("/api/v1/wallet/")
    assert_problem(limited, 429, "throttled")
    assert int(limited["Retry-After"]) > 0


@pytest.mark.parametrize(
    ("path", "method", "body"),
    [
        ("/api/v1/rounds/", "post", {"table": "1", "main_bet": 10**20}),
        ("/api/v1/rounds/", "post", {"table": "1", "main_bet": 1000, "tie_bet": 10**20}),
        ("/api/v1/protection/limits/", "put", {"kind": "wager", "period": "day", "amount": 10**20}),
    ],
)
def test_amounts_beyond_any_bet_are_invalid_not_a_server_error(player_client, table, path, method, body):
    response = getattr(player_client, method)(path, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="big")
    assert_problem(response, 400, "invalid_amount")


def test_a_table_id_beyond_the_database_range_is_unknown(player_client):
    response = place(player_client, type("T", (), {"pk": 10**20})(), key="huge-table")
    assert_problem(response, 400, "unknown_table")


@pytest.mark.django_db(transaction=True)  # as in production: the request's transaction is the outermost one
def test_placing_a_round_stays_within_its_statement_budget(player_client, player, table):
    """Every statement of a round costs CPU on the web server and the database under load
    (docs/BENCHMARKS.md): the caller's token was read by the first request and is remembered
    (accounts/auth_cache.py); then two statements, each committing alone (no BEGIN, no COMMIT):
    the idempotency key's claim with the round's reads, and the round's write (casino_round_place)
    with the stored response; no savepoint. (Without a broker, as here, the round then settles in
    the same process, in a transaction of its own.)"""
    set_next_round(player, tie=False)
    assert place(player_client, table, key="warm").status_code == 201  # the seed pair exists from here on
    set_next_round(player, tie=False)
    with CaptureQueriesContext(connection) as statements:
        assert place(player_client, table, key="counted").status_code == 201
    sql = [q["sql"].split(" ", 1)[0] for q in statements.captured_queries]
    assert sql[: sql.index("BEGIN")] == ["SELECT", "SELECT"]
    assert "core_idempotency_claim" in statements.captured_queries[0]["sql"]
    assert "FOR UPDATE" not in statements.captured_queries[0]["sql"]
    assert "core_idempotency_store" in statements.captured_queries[1]["sql"]
    assert not [q for q in statements.captured_queries if "SAVEPOINT" in q["sql"]]


@pytest.mark.django_db(transaction=True)
def test_a_partners_round_reads_the_partner_and_its_player_in_one_statement(client, table):
    """A signed request's nonce is recorded in the database by the round's first statement, with
    the Idempotency-Key's claim (core/nonces.py): no statement more; the partner and the player it
    acts for are one statement, read by the first request and then remembered (accounts/auth_cache.py)."""
    partner, secret = partner_create(name="Budget Casino")
    partner_player_upsert(partner=partner, external_id="budget-1", currency="EUR")
    player = Player.objects.get(partner=partner, external_id="budget-1")
    wallet_deposit(player=player, amount=10_000, idempotency_key="budget-funds", actor=Actor.system("t"))
    api = PartnerClient(client, partner, secret)
    path = "/api/v1/partner/players/budget-1/rounds/"
    set_next_round(player, tie=False)
    assert api.post(path, {"table": str(table.pk), "main_bet": 100}, HTTP_IDEMPOTENCY_KEY="warm").status_code == 201
    set_next_round(player, tie=False)
    nonces = RequestNonce.objects.count()
    with CaptureQueriesContext(connection) as statements:
        assert api.post(path, {"table": str(table.pk), "main_bet": 100}, HTTP_IDEMPOTENCY_KEY="n").status_code == 201
    sql = [q["sql"].split(" ", 1)[0] for q in statements.captured_queries]
    assert sql[: sql.index("BEGIN")] == ["SELECT", "SELECT"]
    assert RequestNonce.objects.count() == nonces + 1
