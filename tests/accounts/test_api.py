"""The accounts API (accounts/api.py): sign-up and tokens, and what unauthenticated callers may
send without ever making the server fail (docs/SECURITY.md's input rules)."""

import json
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import ApiToken, Player, User
from core.models import AuditEvent
from tests.casino.helpers import sign

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"


def assert_problem(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["code"] == code and body["status"] == status and body["title"] and body["detail"] and body["type"]


def sign_up(client, **body):
    return client.post("/api/v1/players/", body, content_type="application/json")


# --- sign-up, tokens ----------------------------------------------------------------------------------


def test_sign_up_then_get_a_token(client):
    response = sign_up(client, username="bob", password="a-long-pass-phrase", email="b@example.com")
    assert response.status_code == 201 and response.json()["username"] == "bob" and response.json()["currency"] == "EUR"
    token = client.post(
        "/api/v1/auth/token/", {"username": "bob", "password": "a-long-pass-phrase"}, content_type="application/json"
    )
    assert token.status_code == 200 and set(token.json()) == {"token"}
    wallet = client.get("/api/v1/wallet/", HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    assert wallet.json() == {"currency": "EUR", "balance": 0, "in_play": 0}


@pytest.mark.parametrize(
    "body",
    [
        {"username": "x", "password": "a-long-pass-phrase"},
        {"username": "carol", "password": "123"},
        {"username": "carol"},
        {"username": "carol", "password": "a-long-pass-phrase", "email": "nope"},
        {"username": "carol!", "password": "a-long-pass-phrase"},
        {"username": 12345, "password": "a-long-pass-phrase"},
        {"username": "carol", "password": ["a-long-pass-phrase"]},
    ],
)
def test_bad_sign_ups_are_400(client, body):
    assert_problem(client.post("/api/v1/players/", body, content_type="application/json"), 400, "invalid_input")
    assert not Player.objects.exists()


def test_a_taken_username_is_refused(client, player):
    assert_problem(sign_up(client, username="alice", password="a-long-pass-phrase"), 400, "username_taken")
    assert_problem(sign_up(client, username="ALICE", password="a-long-pass-phrase"), 400, "username_taken")


@pytest.mark.parametrize("look_alike", ["alic\u0435", "\u0430lice", "\uff41\uff4c\uff49\uff43\uff45", "AIice", "a1ice"])
def test_a_name_that_reads_like_one_taken_is_taken(client, player, look_alike):
    """Cyrillic letters, full-width letters, I or 1 for l: a person could not tell them apart."""
    assert_problem(sign_up(client, username=look_alike, password="a-long-pass-phrase"), 400, "username_taken")
    assert User.objects.count() == 1


def test_usernames_are_stored_normalised_and_sign_in_either_way(client):
    full_width = "\uff5a\uff4f\uff45\uff12"  # "zoe2"
    assert sign_up(client, username=full_width, password="a-long-pass-phrase").json()["username"] == "zoe2"
    for typed in ("zoe2", full_width):
        token = client.post(
            "/api/v1/auth/token/",
            {"username": typed, "password": "a-long-pass-phrase"},
            content_type="application/json",
        )
        assert token.status_code == 200


@pytest.mark.parametrize("password", ["a-long-pass\x00phrase", "a-long-pass\x07phrase", "a-long-pass\x1bphrase"])
def test_a_control_character_in_a_password_is_refused_at_sign_up(client, password):
    assert_problem(sign_up(client, username="dora", password=password), 400, "invalid_input")
    assert not User.objects.filter(username="dora").exists()


def test_wrong_password_gets_no_token(client, player):
    response = client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": "wrong"}, content_type="application/json"
    )
    assert_problem(response, 400, "invalid_credentials")


def test_a_staff_session_is_not_a_player_on_the_player_api(client, db):
    from tests.factories import StaffFactory

    client.force_login(StaffFactory())  # signed in at the back office: the same session cookie
    assert_problem(client.get("/api/v1/wallet/"), 403, "not_a_player")


def test_a_nul_character_in_credentials_is_refused_not_a_server_error(client, player):
    response = client.post(
        "/api/v1/auth/token/", {"username": "ali\x00ce", "password": "x\x00"}, content_type="application/json"
    )
    assert_problem(response, 400, "invalid_credentials")


def test_token_guessing_is_refused_after_ten_failures_even_with_the_right_password(client):
    from accounts.services import SIGN_IN_FAILURES_ALLOWED
    from tests.factories import make_player

    player = make_player(username="ines")
    player.user.set_password("the-right-passphrase")
    player.user.save()
    for _ in range(SIGN_IN_FAILURES_ALLOWED):
        wrong = client.post(
            "/api/v1/auth/token/", {"username": "ines", "password": "guess"}, content_type="application/json"
        )
        assert wrong.status_code == 400
    refused = client.post(
        "/api/v1/auth/token/", {"username": "ines", "password": "the-right-passphrase"}, content_type="application/json"
    )
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"


# --- staff get no player credentials ----------------------------------------------------------------


@pytest.fixture
def operator(django_user_model):
    return django_user_model.objects.create_user(username="operator", password="operator-pass-phrase", is_staff=True)


def test_a_superuser_gets_no_token_and_the_answer_is_that_of_a_wrong_password(client, django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "root-pass-phrase")
    response = client.post(
        "/api/v1/auth/token/", {"username": "root", "password": "root-pass-phrase"}, content_type="application/json"
    )
    assert_problem(response, 400, "invalid_credentials")
    assert not ApiToken.objects.exists()
    assert AuditEvent.objects.filter(action="sign_in.not_a_player", object_id=str(root.pk)).exists()


def test_staff_get_no_session_cookie_from_the_player_api(client, operator):
    response = client.post(
        "/api/v1/auth/session/",
        {"username": "operator", "password": "operator-pass-phrase"},
        content_type="application/json",
    )
    assert_problem(response, 400, "invalid_credentials")
    assert "sessionid" not in response.cookies and "_auth_user_id" not in client.session


def test_staff_cannot_sign_in_on_the_players_web_sign_in_either(client, operator):
    response = client.post("/signin/", {"username": "operator", "password": "operator-pass-phrase"})
    assert response.status_code == 200 and "do not match" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_staff_flag_on_a_players_login_gets_no_token_either(client):
    from accounts.services import player_create

    player = player_create(username="both", password="both-pass-phrase")
    player.user.is_staff = True
    player.user.save()
    response = client.post(
        "/api/v1/auth/token/", {"username": "both", "password": "both-pass-phrase"}, content_type="application/json"
    )
    assert_problem(response, 400, "invalid_credentials")


def test_staff_passwords_tried_at_the_players_doors_count_as_failures(client, operator):
    from accounts.services import SIGN_IN_FAILURES_ALLOWED

    for _ in range(SIGN_IN_FAILURES_ALLOWED):
        client.post(
            "/api/v1/auth/token/",
            {"username": "operator", "password": "operator-pass-phrase"},
            content_type="application/json",
        )
    refused = client.post(
        "/api/v1/auth/token/",
        {"username": "operator", "password": "operator-pass-phrase"},
        content_type="application/json",
    )
    assert refused.status_code == 429


# --- login CSRF ------------------------------------------------------------------------------------------


@pytest.fixture
def strict_client():
    from django.test import Client

    return Client(enforce_csrf_checks=True)


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ({"username": "alice", "password": "a-long-pass-phrase"}, "application/json"),
        ("username=alice&password=a-long-pass-phrase", "application/x-www-form-urlencoded"),
        ('{"username": "alice", "password": "a-long-pass-phrase"}', "text/plain"),
    ],
)
def test_a_cross_site_session_sign_in_is_refused_before_any_session(strict_client, player, body, content_type):
    player.user.set_password("a-long-pass-phrase")
    player.user.save()
    response = strict_client.post(
        "/api/v1/auth/session/", body, content_type=content_type, HTTP_ORIGIN="http://evil.example"
    )
    assert_problem(response, 403, "permission_denied")
    assert "sessionid" not in response.cookies


def test_a_session_sign_in_without_the_csrf_token_is_refused_even_from_this_site(strict_client, player):
    player.user.set_password("a-long-pass-phrase")
    player.user.save()
    response = strict_client.post(
        "/api/v1/auth/session/",
        {"username": "alice", "password": "a-long-pass-phrase"},
        content_type="application/json",
        HTTP_ORIGIN="http://testserver",
    )
    assert_problem(response, 403, "permission_denied")


def test_a_session_sign_in_with_the_csrf_token_signs_in(strict_client, player):
    player.user.set_password("a-long-pass-phrase")
    player.user.save()
    strict_client.get("/signin/")  # the page sets the csrftoken cookie
    csrf = strict_client.cookies["csrftoken"].value
    response = strict_client.post(
        "/api/v1/auth/session/",
        {"username": "alice", "password": "a-long-pass-phrase"},
        content_type="application/json",
        HTTP_ORIGIN="http://testserver",
        HTTP_X_CSRFTOKEN=csrf,
    )
    assert response.status_code == 200 and "sessionid" in response.cookies
    assert strict_client.get("/api/v1/wallet/").status_code == 200


# --- unauthenticated input never makes a 500 ---------------------------------------------------------


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize(
    "path", ["/api/v1/players/", "/api/v1/auth/token/", "/api/v1/auth/session/", "/api/v1/rounds/"]
)
@pytest.mark.parametrize("depth", [33, 1_000, 50_000])
def test_json_nested_deeply_is_a_400(client, player_client, path, depth):
    caller = player_client if path == "/api/v1/rounds/" else client
    body = b'{"username": ' + nested(depth) + b', "password": "x", "table": "1", "main_bet": 100}'
    response = caller.post(path, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="deep")
    assert_problem(response, 400, "invalid_input")


@pytest.mark.parametrize("field", ["username", "password"])
@pytest.mark.parametrize("path", ["/api/v1/players/", "/api/v1/auth/token/"])
def test_a_lone_surrogate_is_a_400(client, path, field):
    body = {"username": "erin", "password": "a-long-pass-phrase", field: "ab\ud800cd"}
    response = client.post(path, json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and response["Content-Type"] == PROBLEM


def test_the_contracts_sign_up_needs_no_confirmation_and_records_none(client):
    """API.md's sign-up is `username`, `password` and an optional `email`: still a 201 with those
    alone (nothing confirmed, nothing recorded)."""
    response = sign_up(client, username="hugo", password="a-long-pass-phrase")
    assert response.status_code == 201
    player = Player.objects.get(user__username="hugo")
    assert player.age_confirmed_at is None and player.terms_accepted_at is None and player.terms_version == ""


def test_a_sign_up_that_confirms_age_and_terms_records_both_with_the_moment(client, settings):
    from accounts.services import TERMS_VERSION
    from core import clock

    settings.MINIMUM_AGE = 21
    before = clock.now()
    body = {"username": "iris", "password": "a-long-pass-phrase", "age_confirmed": True, "terms_accepted": True}
    assert sign_up(client, **body).status_code == 201
    player = Player.objects.get(user__username="iris")
    assert player.age_confirmed_minimum == 21 and player.terms_version == TERMS_VERSION
    assert before <= player.age_confirmed_at <= clock.now() and player.terms_accepted_at == player.age_confirmed_at
    event = AuditEvent.objects.get(action="player.signed_up", object_id=str(player.pk))
    assert event.data == {"age_confirmed_minimum": 21, "terms_version": TERMS_VERSION}


@pytest.mark.parametrize("value", [False, "true", 1, None])
def test_a_confirmation_is_true_or_left_out(client, value):
    response = sign_up(client, username="jude", password="a-long-pass-phrase", age_confirmed=value)
    assert_problem(response, 400, "invalid_input")
    assert "age_confirmed" in response.json()["detail"] and not User.objects.filter(username="jude").exists()


def test_an_e_mail_longer_than_the_account_holds_is_a_400(client):
    email = "a" * 300 + "@example.com"  # 312 characters: a valid form, longer than 254
    assert_problem(sign_up(client, username="fred", password="a-long-pass-phrase", email=email), 400, "invalid_input")
    assert not User.objects.filter(username="fred").exists()


def test_the_web_sign_up_refuses_a_long_e_mail_too(client):
    email = "a" * 300 + "@example.com"
    response = client.post("/signup/", {"username": "gina", "email": email, "password": "a-long-pass-phrase"})
    assert response.status_code == 200 and not User.objects.filter(username="gina").exists()


# --- JSON only ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
def test_a_body_that_is_not_json_is_415(client, content_type):
    body = "username=hana&password=a-long-pass-phrase"
    if content_type.startswith("multipart"):
        body = '--x\r\nContent-Disposition: form-data; name="username"\r\n\r\nhana\r\n--x--\r\n'
    response = client.post("/api/v1/players/", body, content_type=content_type)
    assert_problem(response, 415, "unsupported_media_type")
    assert not User.objects.filter(username="hana").exists()


# --- fuzzed: no request an unauthenticated (or any) caller sends makes a 500 --------------------------

FIELDS = (
    "username",
    "password",
    "email",
    "table",
    "main_bet",
    "tie_bet",
    "direction",
    "amount",
    "reference",
    "currency",
    "action",
    "kind",
    "days",
    "months",
)
# Text with lone surrogates and NULs: json.dumps writes them as \ud800 and \u0000 escapes.
any_text = st.text(st.characters(exclude_categories=()), max_size=40) | st.text("ab\x00\ud800\udfff", max_size=8)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**18, max_value=10**400)
    | st.floats()
    | any_text
    | st.just("a" * 300 + "@example.com"),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(any_text, children, max_size=3),
    max_leaves=12,
)
bodies = st.one_of(
    st.fixed_dictionaries({"username": any_text, "password": any_text}, optional={"email": any_text}).map(
        lambda value: json.dumps(value).encode()
    ),
    st.dictionaries(st.sampled_from(FIELDS) | any_text, json_values, max_size=6).map(
        lambda value: json.dumps(value).encode()
    ),
    json_values.map(lambda value: json.dumps(value).encode()),
    st.integers(min_value=1, max_value=60_000).map(lambda depth: b'{"username": ' + nested(depth) + b"}"),
    st.binary(max_size=200),
)
API_PATHS = (
    "/api/v1/players/",
    "/api/v1/auth/token/",
    "/api/v1/auth/session/",
    "/api/v1/rounds/",
    "/api/v1/protection/exclusions/",
    "/api/v1/partner/players/fuzz-1/",
    "/api/v1/partner/players/fuzz-1/transfers/",
)
header_values = (
    st.none()
    | st.text(st.characters(codec="latin-1"), max_size=80)
    | st.sampled_from(["Token " + "0" * 64, "Token a\x00b", "Token", "Token a b", "Basic x"])
)


@pytest.fixture
def fuzz_callers(db, settings, table):
    from accounts.services import partner_create
    from accounts.tokens import token_issue
    from tests.factories import make_player

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast, for the fuzzing only
    player = make_player(balance=10_000_000, username="fuzzy")
    partner, secret = partner_create(name="Fuzz Casino")
    make_player(balance=10_000_000, username="p-fuzz", partner=partner, external_id="fuzz-1")
    return {"token": token_issue(user=player.user), "partner": partner, "secret": secret}


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data(), body=bodies, authorization=header_values, idempotency_key=header_values)
def test_any_body_and_headers_get_an_answer_or_a_problem_never_a_server_error(
    client, fuzz_callers, data, body, authorization, idempotency_key
):
    path = data.draw(st.sampled_from(API_PATHS))
    method = "put" if path == "/api/v1/partner/players/fuzz-1/" else "post"
    headers = {}
    if "/partner/" in path:
        headers.update(sign(fuzz_callers["partner"], fuzz_callers["secret"], method.upper(), path, body))
    elif data.draw(st.booleans()):
        headers["HTTP_AUTHORIZATION"] = f"Token {fuzz_callers['token']}"
    elif authorization is not None:
        headers["HTTP_AUTHORIZATION"] = authorization
    if idempotency_key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = idempotency_key
    response = getattr(client, method)(path, body, content_type="application/json", **headers)
    assert response.status_code < 500, (path, body[:200], response.content[:300])
    if response.status_code >= 400:
        assert response["Content-Type"] == PROBLEM


form_values = st.binary(max_size=60).map(lambda raw: quote_from_bytes(raw)) | st.sampled_from(
    ["%ED%A0%80", "%00", "a" * 300 + "%40example.com", "%C0%AF", "%FF"]
)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data(), username=form_values, password=form_values, email=form_values)
def test_any_web_sign_in_or_sign_up_form_gets_a_page_never_a_server_error(
    client, fuzz_callers, data, username, password, email
):
    path = data.draw(st.sampled_from(["/signin/", "/signup/"]))
    body = f"username={username}&password={password}&email={email}"
    response = client.post(path, body, content_type="application/x-www-form-urlencoded")
    assert response.status_code in (200, 302, 429), (path, body, response.status_code)


def test_password_checks_per_address_are_bounded_whatever_names_are_tried(client, settings):
    """Issue #28, item 3: each sign-in or sign-up hashes a password (a third of a second of CPU),
    a name nobody has too; one address gets PASSWORD_CHECKS_PER_MINUTE of them, then 429."""
    settings.PASSWORD_CHECKS_PER_MINUTE = 5
    statuses = [
        client.post(
            "/api/v1/auth/token/", {"username": f"nobody{n}", "password": "x" * 12}, content_type="application/json"
        ).status_code
        for n in range(5)
    ]
    assert statuses == [400] * 5
    for path, body in (
        ("/api/v1/auth/token/", {"username": "nobody9", "password": "x" * 12}),
        ("/api/v1/players/", {"username": "newcomer", "password": "a-long-passphrase-7"}),
    ):
        refused = client.post(path, body, content_type="application/json")
        assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    other = client.post(
        "/api/v1/auth/token/",
        {"username": "nobody10", "password": "x" * 12},
        content_type="application/json",
        REMOTE_ADDR="198.51.100.4",
    )
    assert other.status_code == 400  # another address has its own
