"""Shapes of the API, for the OpenAPI schema. Views validate input in services (an amount must be
a JSON integer: DRF's IntegerField would accept "10"), and build output with the selectors'
representation functions; these serializers describe exactly those shapes."""

from rest_framework import serializers

from casino.engine.war import PRESETS


class ProblemSerializer(serializers.Serializer):
    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    code = serializers.CharField(help_text="Machine code, e.g. insufficient_funds; never changes.")


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


class WalletSerializer(serializers.Serializer):
    currency = serializers.CharField()
    balance = serializers.IntegerField(help_text="What the player can bet now, in minor units.")
    in_play = serializers.IntegerField(help_text="Staked on rounds not settled yet.")


class WalletLineSerializer(serializers.Serializer):
    id = serializers.CharField()
    kind = serializers.CharField()
    amount = serializers.IntegerField(help_text="Signed: negative leaves the wallet.")
    balance_after = serializers.IntegerField()
    round = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()


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
    fairness = RoundFairnessSerializer()
    created_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)
    settled_at = serializers.DateTimeField(allow_null=True)

    def get_fields(self):
        fields = super().get_fields()
        fields["raise"] = fields.pop("raise_")
        return fields


class RoundCreateSerializer(serializers.Serializer):
    table = serializers.CharField()
    main_bet = serializers.IntegerField(min_value=1)
    tie_bet = serializers.IntegerField(min_value=0, required=False, default=0)


class DecisionSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=["war", "surrender"])


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
    client_seed = serializers.CharField(required=False, max_length=64)


class SignupSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True)
    email = serializers.EmailField(required=False)


class PlayerSerializer(serializers.Serializer):
    id = serializers.CharField()
    username = serializers.CharField()
    email = serializers.CharField()
    currency = serializers.CharField()
    external_id = serializers.CharField(allow_null=True)


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField()


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class PartnerPlayerSerializer(serializers.Serializer):
    currency = serializers.CharField(help_text="ISO 4217 code of the new player's wallet.")


class TransferCreateSerializer(serializers.Serializer):
    direction = serializers.ChoiceField(choices=["in", "out"])
    amount = serializers.IntegerField(min_value=1)
    reference = serializers.CharField(max_length=128)


class TransferSerializer(serializers.Serializer):
    id = serializers.CharField()
    direction = serializers.ChoiceField(choices=["in", "out"])
    amount = serializers.IntegerField()
    currency = serializers.CharField()
    reference = serializers.CharField()
    balance = serializers.IntegerField(help_text="The wallet's balance after the transfer.")
    created_at = serializers.DateTimeField()


class LimitPendingSerializer(serializers.Serializer):
    amount = serializers.IntegerField(allow_null=True)
    effective_from = serializers.DateTimeField()


class LimitSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["deposit", "loss", "wager"])
    period = serializers.ChoiceField(choices=["day", "week", "month"])
    amount = serializers.IntegerField(allow_null=True, help_text="In force now (null: none)")
    used = serializers.IntegerField(help_text="Deposited, lost or staked in the period so far")
    pending = LimitPendingSerializer(allow_null=True, help_text="An increase or removal cooling off for 24 hours")


class LimitSetSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["deposit", "loss", "wager"])
    period = serializers.ChoiceField(choices=["day", "week", "month"])
    amount = serializers.IntegerField(allow_null=True, min_value=1, help_text="null removes the limit (after 24 hours)")


class ExclusionSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["timeout", "self_exclusion"])
    ends_at = serializers.DateTimeField()


class ExclusionStartSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["timeout", "self_exclusion"])
    days = serializers.IntegerField(required=False, min_value=1, max_value=42, help_text="time-out: 1 to 42")
    months = serializers.ChoiceField(required=False, choices=[6, 12, 60], help_text="self-exclusion: 6, 12 or 60")


class RealityCheckSerializer(serializers.Serializer):
    interval_minutes = serializers.IntegerField(help_text="0 (never) or 10 to 480")


class SessionFiguresSerializer(serializers.Serializer):
    started_at = serializers.DateTimeField()
    elapsed_s = serializers.IntegerField()
    rounds = serializers.IntegerField()
    staked = serializers.IntegerField()
    net = serializers.IntegerField()
    next_reality_check_at = serializers.DateTimeField(allow_null=True)


class ProtectionSerializer(serializers.Serializer):
    limits = LimitSerializer(many=True)
    exclusion = ExclusionSerializer(allow_null=True)
    reality_check = RealityCheckSerializer()
    session = SessionFiguresSerializer()


class MatchCreateSerializer(serializers.Serializer):
    preset = serializers.ChoiceField(choices=sorted(PRESETS))
    options = serializers.DictField(required=False, help_text="the options of RULES.md section 8")
    client_seed = serializers.CharField(required=False, allow_blank=True, max_length=64)
    server_seed = serializers.CharField(required=False, help_text="64 hex digits; drawn by the service if absent")
    human_seat = serializers.IntegerField(required=False, allow_null=True, help_text="Steal War: the person's seat")


class MatchDecisionSerializer(serializers.Serializer):
    steal = serializers.IntegerField(required=False, allow_null=True, help_text="the seat to steal from, or null")
    top = serializers.IntegerField(required=False, help_text="index of the won card to lay on top")


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
    battles = MatchBattleSerializer(many=True)
    events = MatchEventSerializer(many=True)
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
