"""Partner signatures (accounts/partners.py `partner_authenticate`): every header is checked for
its form before it is used, so no header a client can send makes the server fail."""

import string
import time

import pytest
from django.core.cache import caches
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.partners import partner_authenticate, request_signature
from accounts.services import partner_create
from core.errors import SignatureInvalid
from core.models import RequestNonce
from tests.casino.helpers import sign

pytestmark = pytest.mark.django_db
PATH = "/api/v1/partner/players/ext-1/"


@pytest.fixture
def partner_pair(db):
    return partner_create(name="Header Casino")


def put(client, headers):
    return client.put(PATH, data=b'{"currency": "EUR"}', content_type="application/json", **headers)


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("HTTP_X_TIMESTAMP", "9" * 400),  # was OverflowError: a 500
        ("HTTP_X_TIMESTAMP", "1_700_000_000"),  # int() reads underscores
        ("HTTP_X_TIMESTAMP", "+1700000000"),
        ("HTTP_X_TIMESTAMP", " 1700000000"),
        ("HTTP_X_TIMESTAMP", "\uff11\uff17\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10"),  # full-width digits
        ("HTTP_X_SIGNATURE", "\u00e9" * 64),  # non-ASCII: was TypeError in compare_digest, a 500
        ("HTTP_X_SIGNATURE", "zz" * 32),
        ("HTTP_X_PARTNER_KEY", "pk_\x00"),
        ("HTTP_X_PARTNER_KEY", "\u00e9t\u00e9"),
        ("HTTP_X_NONCE", "\u00e9" * 10),
    ],
)
def test_a_malformed_header_is_signature_invalid_not_a_server_error(client, partner_pair, header, value):
    partner, secret = partner_pair
    headers = sign(partner, secret, "PUT", PATH, b'{"currency": "EUR"}')
    headers[header] = value
    response = put(client, headers)
    assert response.status_code == 401 and response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "signature_invalid"


def test_a_timestamp_with_underscores_is_refused_even_when_signed_over(client, partner_pair):
    partner, secret = partner_pair
    timestamp = f"{int(time.time()):_}"
    body = b'{"currency": "EUR"}'
    signature = request_signature(
        secret=secret, timestamp=timestamp, nonce="nonce-0001", method="PUT", path=PATH, body=body
    )
    headers = {
        "HTTP_X_PARTNER_KEY": partner.key_id,
        "HTTP_X_TIMESTAMP": timestamp,
        "HTTP_X_NONCE": "nonce-0001",
        "HTTP_X_SIGNATURE": signature,
    }
    assert put(client, headers).status_code == 401


# What a client can put in a header: text the WSGI server decodes as Latin-1, or nothing.
header_text = st.one_of(
    st.none(),
    st.text(st.characters(codec="latin-1"), max_size=80),
    st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=70),
    st.integers().map(str),
    st.integers(min_value=0, max_value=10**500).map(str),
    st.text(string.hexdigits, min_size=60, max_size=70),
)


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), key=header_text, timestamp=header_text, nonce=header_text, signature=header_text)
def test_any_headers_give_a_partner_or_signature_invalid(partner_pair, data, key, timestamp, nonce, signature):
    partner, secret = partner_pair
    key = data.draw(st.sampled_from([key, partner.key_id]))
    timestamp = data.draw(st.sampled_from([timestamp, str(int(time.time()))]))
    body = data.draw(st.binary(max_size=64))
    if data.draw(st.booleans()) and isinstance(timestamp, str) and isinstance(nonce, str):
        signature = request_signature(
            secret=secret, timestamp=timestamp, nonce=nonce, method="PUT", path=PATH, body=body
        )
    try:
        found = partner_authenticate(
            key_id=key, timestamp=timestamp, nonce=nonce, signature=signature, method="PUT", path=PATH, body=body
        )
    except SignatureInvalid:
        return
    assert found.partner == partner


def _authenticate(partner, secret, nonce):
    timestamp = str(int(time.time()))
    signature = request_signature(secret=secret, timestamp=timestamp, nonce=nonce, method="PUT", path=PATH, body=b"")
    return partner_authenticate(
        key_id=partner.key_id, timestamp=timestamp, nonce=nonce, signature=signature, method="PUT", path=PATH, body=b""
    )


def test_partner_authenticate_takes_the_nonce_in_redis_in_one_command(partner_pair, django_assert_num_queries):
    partner, secret = partner_pair
    with django_assert_num_queries(1):  # the partner; the nonce costs one Redis command here
        assert _authenticate(partner, secret, "redis-nonce-1").partner == partner
    with pytest.raises(SignatureInvalid):
        _authenticate(partner, secret, "redis-nonce-1")


def test_while_redis_is_away_partner_authenticate_leaves_the_nonce_to_the_database(partner_pair, monkeypatch):
    partner, secret = partner_pair
    monkeypatch.setattr(caches["default"].breaker, "allow", lambda: False)  # the circuit is open: Redis is away
    assert _authenticate(partner, secret, "outage-nonce-1").partner == partner
    assert _authenticate(partner, secret, "outage-nonce-1").partner == partner  # the request records it (below)
    assert not RequestNonce.objects.exists()


def test_every_signed_request_records_its_nonce_in_the_database(client, partner_pair, monkeypatch):
    """The database refuses a used nonce whatever Redis remembers (core/nonces.py)."""
    partner, secret = partner_pair
    headers = sign(partner, secret, "PUT", PATH, b'{"currency": "EUR"}')
    assert put(client, headers).status_code == 201
    assert RequestNonce.objects.filter(key=f"partner:{partner.pk}:{headers['HTTP_X_NONCE']}").exists()
    monkeypatch.setattr(caches["default"].breaker, "allow", lambda: False)  # Redis away: it remembers nothing
    replayed = put(client, headers)
    assert replayed.status_code == 401 and replayed.json()["code"] == "signature_invalid"
    assert "already used" in replayed.json()["detail"]
