"""Shapes of the casino's API: the input ones validate requests (views call `validated`), the
output ones describe what the selectors' representation functions build. Both make the schema."""

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


class TableRulesSerializer(serializers.Serializer):
    decks = serializers.IntegerField()
    burn = serializers.IntegerField()
    tie_pays = serializers.IntegerField()
    tie_after_tie_bonus = serializers.BooleanField()
    shuffle = serializers.ChoiceField(choices=["fresh", "persistent"])
    decision_timeout_s = serializers.IntegerField()


class HouseEdgeSerializer(serializers.Serializer):
    war = serializers.FloatField(help_text="Always going to war, per unit of the main bet (0.0287713 = 2.877 %).")
    surrender = serializers.FloatField()
    tie_bet = serializers.FloatField()


class TableSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    currency = serializers.CharField()
    min_bet = serializers.IntegerField()
    max_bet = serializers.IntegerField()
    bet_step = serializers.IntegerField()
    max_tie_bet = serializers.IntegerField()
    rules = TableRulesSerializer()
    house_edge = HouseEdgeSerializer()


class WarCardsSerializer(serializers.Serializer):
    player_card = serializers.CharField()
    dealer_card = serializers.CharField()


class RoundFairnessSerializer(serializers.Serializer):
    server_seed_hash = serializers.CharField()
    client_seed = serializers.CharField()
    nonce = serializers.IntegerField()
    server_seed = serializers.CharField(allow_null=True, help_text="null until the seed pair is rotated")
    decks = serializers.IntegerField()
    burn = serializers.IntegerField()
    shuffle = serializers.ChoiceField(choices=["fresh", "persistent"])
    shoe_nonce = serializers.IntegerField(
        allow_null=True, help_text="persistent shoe: the nonce whose full shuffle is the shoe"
    )
    shoe_position = serializers.IntegerField(
        allow_null=True, help_text="persistent shoe: where the round's first card lies in that shuffle"
    )


class NetsSerializer(serializers.Serializer):
    main = serializers.IntegerField()
    raise_ = serializers.IntegerField()
    tie = serializers.IntegerField()
    bonus = serializers.IntegerField()

    def get_fields(self):
        fields = super().get_fields()
        fields["raise"] = fields.pop("raise_")
        return fields


class DecisionValuesSerializer(serializers.Serializer):
    war = serializers.FloatField(help_text="Expected net of going to war, per unit of the main bet.")
    surrender = serializers.FloatField()


class RoundRulesSerializer(serializers.Serializer):
    tie_pays = serializers.IntegerField(help_text="The tie bet pays this many to 1.")
    tie_after_tie_bonus = serializers.BooleanField(help_text="A tie in the war pays a bonus equal to the main bet.")
    house_rule = serializers.ChoiceField(
        choices=["war", "surrender"], help_text="What the table decides for this round if its deadline passes."
    )


class RoundSerializer(serializers.Serializer):
    id = serializers.CharField()
    table = serializers.CharField()
    status = serializers.ChoiceField(choices=["awaiting_decision", "resolved", "settled"])
    currency = serializers.CharField()
    main_bet = serializers.IntegerField()
    tie_bet = serializers.IntegerField()
    raise_ = serializers.IntegerField()
    player_card = serializers.CharField()
    dealer_card = serializers.CharField()
    decision = serializers.ChoiceField(choices=["war", "surrender"], allow_null=True)
    war = WarCardsSerializer(allow_null=True)
    outcome = serializers.ChoiceField(
        choices=["win", "lose", "surrender", "war_win", "war_lose", "war_tie"], allow_null=True
    )
    net = serializers.IntegerField(allow_null=True)
    payout = serializers.IntegerField(allow_null=True)
    nets = NetsSerializer(allow_null=True)
    decision_deadline = serializers.DateTimeField(allow_null=True)
    decision_values = DecisionValuesSerializer(allow_null=True)
    decision_timed_out = serializers.BooleanField(help_text="The table took the decision: the deadline passed.")
    rules = RoundRulesSerializer(help_text="The rules the round was placed under.")
    fairness = RoundFairnessSerializer()
    created_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)
    settled_at = serializers.DateTimeField(allow_null=True)

    def get_fields(self):
        fields = super().get_fields()
        fields["raise"] = fields.pop("raise_")
        return fields


class RoundCreateSerializer(serializers.Serializer):
    table = TableIdField()
    main_bet = MinorUnitsField(help_text="Minor units: between the table's min_bet and max_bet, in bet_step steps.")
    tie_bet = MinorUnitsField(
        allow_zero=True, required=False, default=0, help_text="0, or up to the table's max_tie_bet in bet_step steps."
    )


class DecisionSerializer(serializers.Serializer):
    action = EnumField(Action)


class PreviousSeedSerializer(serializers.Serializer):
    server_seed = serializers.CharField()
    server_seed_hash = serializers.CharField()
    client_seed = serializers.CharField()
    last_nonce = serializers.IntegerField(allow_null=True)


class FairnessSerializer(serializers.Serializer):
    server_seed_hash = serializers.CharField()
    client_seed = serializers.CharField()
    nonce = serializers.IntegerField(help_text="The nonce of the next round.")
    next_server_seed_hash = serializers.CharField(
        help_text="SHA-256 of the server seed drawn in advance: the next rotation moves to it (any client seed)."
    )
    previous = PreviousSeedSerializer(allow_null=True)


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


class MatchFairnessSerializer(serializers.Serializer):
    server_seed_hash = serializers.CharField()
    server_seed = serializers.CharField(allow_null=True, help_text="hidden while a person still decides")
    client_seed = serializers.CharField(allow_blank=True)
    nonce = serializers.IntegerField()


class MatchResultSerializer(serializers.Serializer):
    winner = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField()
    battles = serializers.IntegerField()
    counts = serializers.ListField(child=serializers.IntegerField())
    loser = serializers.IntegerField(required=False, allow_null=True)


class MatchBattleSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    up = serializers.ListField(child=serializers.CharField(allow_null=True))
    war_steps = serializers.IntegerField()
    winner = serializers.IntegerField(allow_null=True)
    counts = serializers.ListField(child=serializers.IntegerField())


class MatchEventSerializer(serializers.Serializer):
    type = serializers.CharField()
    battle = serializers.IntegerField()
    seat = serializers.IntegerField(required=False)
    cards = serializers.ListField(child=serializers.CharField(), required=False)
    seats = serializers.ListField(child=serializers.IntegerField(), required=False)
    step = serializers.IntegerField(required=False)
    counts = serializers.ListField(child=serializers.IntegerField(), required=False)


class MatchQuestionSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["steal", "top"])
    seat = serializers.IntegerField()
    battle = serializers.IntegerField()
    card = serializers.CharField(required=False)
    targets = serializers.ListField(child=serializers.IntegerField(), required=False)
    pile_sizes = serializers.ListField(child=serializers.IntegerField(), required=False)
    pile_tops = serializers.ListField(child=serializers.CharField(allow_null=True), required=False)
    in_war = serializers.BooleanField(required=False)
    cards = serializers.ListField(child=serializers.CharField(), required=False)


class MatchPageSerializer(serializers.Serializer):
    offset = serializers.IntegerField(help_text="The battles skipped before this page.")
    limit = serializers.IntegerField(help_text="The most battles this page holds.")
    battles = serializers.IntegerField(help_text="The battles of the whole match (so far).")
    next = serializers.URLField(allow_null=True, help_text="The next page of battles and events, if any.")


class MatchSerializer(serializers.Serializer):
    id = serializers.CharField()
    preset = serializers.CharField()
    options = serializers.DictField()
    seats = serializers.IntegerField()
    human_seat = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=["awaiting_decision", "finished"])
    fairness = MatchFairnessSerializer()
    deal = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), allow_null=True,
        help_text="each seat's stock, top first; null while a person still decides",
    )  # fmt: skip
    deal_counts = serializers.ListField(child=serializers.IntegerField(), help_text="cards dealt to each seat")
    result = MatchResultSerializer(allow_null=True)
    battles = MatchBattleSerializer(many=True, help_text="This page's battles (`page`).")
    events = MatchEventSerializer(many=True, help_text="The events of this page's battles.")
    page = MatchPageSerializer()
    pending = MatchQuestionSerializer(allow_null=True)
    created_at = serializers.CharField()
    finished_at = serializers.CharField(allow_null=True)


class WarPresetSerializer(serializers.Serializer):
    name = serializers.CharField()
    family = serializers.CharField()
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="fewest and most seats")
    deck_size = serializers.IntegerField()
    defaults = serializers.DictField()
    accepts_jokers = serializers.BooleanField()
    description = serializers.CharField()
