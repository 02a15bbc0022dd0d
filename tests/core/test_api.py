"""What every app's API shares (core/api.py, core/parsers.py): JSON only, strict fields, contract
codes from declared shapes, strict pages; fuzzed where any input can arrive."""

import contextlib
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers
from rest_framework.exceptions import ParseError

from core.api import EnumField, Pages, PrintableTextField, StrictChoiceField, StrictIntegerField, validated
from core.errors import InvalidAmount, InvalidInput, UnknownTable
from core.parsers import MAX_JSON_DEPTH, JsonParser
from ledger.serializers import MinorUnitsField
from protection.models import LimitKind


def parse(body: bytes):
    return JsonParser().parse(io.BytesIO(body), "application/json", {})


def test_json_nested_deeper_than_any_request_is_a_parse_error():
    assert parse(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH) == json.loads(
        b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    )
    for depth in (MAX_JSON_DEPTH + 1, 1_000, 100_000):
        with pytest.raises(ParseError):
            parse(b'{"a": ' + b"[" * depth + b"]" * depth + b"}")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    body=st.one_of(
        st.binary(max_size=300),
        json_values.map(lambda value: json.dumps(value).encode()),
        st.integers(min_value=1, max_value=5_000).map(lambda depth: b"[" * depth + b"1" + b"]" * depth),
        st.integers(min_value=1, max_value=5_000).map(lambda depth: b'{"a":' * depth + b"1" + b"}" * depth),
        st.text().map(lambda text: text.encode("utf-8", "surrogatepass")),
    )
)
def test_the_json_parser_answers_data_or_a_parse_error(body):
    with contextlib.suppress(ParseError):
        parse(body)


class Shape(serializers.Serializer):
    count = StrictIntegerField(min_value=0)
    amount = MinorUnitsField(required=False)
    kind = EnumField(LimitKind, required=False)
    months = StrictChoiceField(choices=[6, 12], required=False)
    note = PrintableTextField(required=False)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"count": "1"}, InvalidInput),
        ({"count": True}, InvalidInput),
        ({"count": 1.0}, InvalidInput),
        ({"count": 1, "amount": "10"}, InvalidAmount),
        ({"count": 1, "amount": 0}, InvalidAmount),
        ({"count": 1, "amount": None}, InvalidAmount),
        ({"count": 1, "kind": "Wager"}, InvalidInput),
        ({"count": 1, "months": "6"}, InvalidInput),
        ({"count": 1, "months": True}, InvalidInput),
        ({"count": 1, "note": "a\x07b"}, InvalidInput),
        ([{"count": 1}], InvalidInput),
    ],
)
def test_shapes_are_strict_and_name_the_contract_code(data, error):
    with pytest.raises(error) as raised:
        validated(Shape, data)
    assert type(raised.value) is error and raised.value.extra["errors"]


def test_a_contract_code_wins_over_a_generic_error_and_all_errors_travel():
    with pytest.raises(InvalidAmount) as raised:
        validated(Shape, {"count": "x", "amount": -1})
    assert set(raised.value.extra["errors"]) == {"count", "amount"}


def test_valid_values_come_back_typed():
    shape = validated(Shape, {"count": 0, "amount": 5, "kind": "wager", "months": 12, "note": "é ok"})
    assert shape == {"count": 0, "amount": 5, "kind": LimitKind.WAGER, "months": 12, "note": "é ok"}
    assert UnknownTable.code == "unknown_table"  # a code fields may name (casino/api/serializers.py)


class FakeRequest:
    def __init__(self, **params):
        self.query_params = params


@pytest.mark.parametrize("limit", ["0", "501", "-1", "1_0", " 5", "\uff15", "5.0"])
def test_pages_refuse_a_limit_out_of_range(limit):
    with pytest.raises(InvalidInput):
        Pages().get_limit(FakeRequest(limit=limit))


@pytest.mark.parametrize("offset", ["x", "-1", str(10**12), "+1"])
def test_pages_refuse_an_offset_out_of_range(offset):
    with pytest.raises(InvalidInput):
        Pages().get_offset(FakeRequest(offset=offset))


def test_pages_take_plain_numbers():
    assert Pages().get_limit(FakeRequest(limit="20")) == 20 and Pages().get_offset(FakeRequest(offset="40")) == 40
    assert Pages().get_limit(FakeRequest()) == Pages.default_limit
