"""Shapes of the requests to the casino's API: they validate them (views call `validated`) and make
their schema. The answers' shapes are casino/shapes.py's."""

import re

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty

from casino.engine import Action
from casino.engine.war import PRESETS
from casino.services.fairness import CLIENT_SEED_MAX
from core.api import EnumField, PrintableTextField, StrictCharField, StrictChoiceField, StrictIntegerField
from core.errors import UnknownTable
from ledger.serializers import MinorUnitsField

TABLE_ID_DIGITS = 18


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": f"^[1-9][0-9]{{0,{TABLE_ID_DIGITS - 1}}}$"},
            {"type": "integer", "minimum": 1, "maximum": 10**TABLE_ID_DIGITS - 1},
        ],
        "description": 'The table\'s id as `GET tables/` gives it ("1"), or the same number as a JSON integer.',
    }
)
class TableIdField(serializers.Field):
    """A table's id: its digits as a string, exactly (no spaces, sign or other digits than 0-9), or
    a JSON integer (not a boolean). Anything else, missing or null is `unknown_table` (API.md)."""

    def to_internal_value(self, data):
        if type(data) is int and 1 <= data < 10**TABLE_ID_DIGITS:
            return data
        if isinstance(data, str) and re.fullmatch(f"[1-9][0-9]{{0,{TABLE_ID_DIGITS - 1}}}", data, re.ASCII):
            return int(data)
        raise serializers.ValidationError("invalid")

    def to_representation(self, value):
        return str(value)

    def run_validation(self, data=empty):
        try:
            return super().run_validation(data)
        except serializers.ValidationError:
            shown = data if data is not empty else None
            detail = gettext("there is no table %(table)r") % {"table": shown}
            raise serializers.ValidationError(detail, code=UnknownTable.code) from None


class RoundCreateSerializer(serializers.Serializer):
    table = TableIdField()
    main_bet = MinorUnitsField(help_text="Minor units: between the table's min_bet and max_bet, in bet_step steps.")
    tie_bet = MinorUnitsField(
        allow_zero=True, required=False, default=0, help_text="0, or up to the table's max_tie_bet in bet_step steps."
    )


class DecisionSerializer(serializers.Serializer):
    action = EnumField(Action)


class RotateSerializer(serializers.Serializer):
    client_seed = PrintableTextField(
        required=False, min_length=1, max_length=CLIENT_SEED_MAX, help_text="The next pair's client seed (optional)."
    )


class MatchCreateSerializer(serializers.Serializer):
    preset = StrictChoiceField(choices=sorted(PRESETS))
    options = serializers.DictField(required=False, help_text="the options of RULES.md section 8")
    client_seed = PrintableTextField(required=False, allow_blank=True, max_length=64)
    server_seed = StrictCharField(
        required=False, min_length=64, max_length=64, help_text="64 hex digits; drawn by the service if absent"
    )
    human_seat = StrictIntegerField(
        required=False, allow_null=True, min_value=0, help_text="Steal War: the person's seat"
    )


class MatchDecisionSerializer(serializers.Serializer):
    steal = StrictIntegerField(
        required=False, allow_null=True, min_value=0, help_text="the seat to steal from, or null"
    )
    top = StrictIntegerField(required=False, min_value=0, help_text="index of the won card to lay on top")
