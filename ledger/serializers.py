"""Shapes of the ledger's API, and the one amount field every API takes money with."""

from __future__ import annotations

from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.fields import empty

from core.api import StrictIntegerField
from core.errors import InvalidAmount
from ledger.models import EntryKind
from ledger.money import MAX_MINOR_UNITS


class MinorUnitsField(StrictIntegerField):
    """An amount of minor units, a JSON integer (API.md: a float, a string, a negative or a zero
    amount where a positive one is needed is `invalid_amount`, and so is a missing one)."""

    def __init__(self, *, allow_zero: bool = False, **kwargs):
        self.allow_zero = allow_zero
        kwargs.setdefault("min_value", 0 if allow_zero else 1)
        kwargs.setdefault("max_value", MAX_MINOR_UNITS)
        super().__init__(**kwargs)

    def run_validation(self, data=empty):
        try:
            return super().run_validation(data)
        except serializers.ValidationError:
            if self.allow_zero:
                text = gettext("%(name)s must be a non-negative integer of minor units, at most %(max)s")
            else:
                text = gettext("%(name)s must be a positive integer of minor units, at most %(max)s")
            detail = text % {"name": self.field_name, "max": MAX_MINOR_UNITS}
            raise serializers.ValidationError(detail, code=InvalidAmount.code) from None


class WalletSerializer(serializers.Serializer):
    currency = serializers.CharField()
    balance = serializers.IntegerField(help_text="What the player can bet now, in minor units.")
    in_play = serializers.IntegerField(help_text="Staked on rounds not settled yet.")


class WalletLineSerializer(serializers.Serializer):
    id = serializers.CharField()
    kind = serializers.CharField(
        help_text="What moved the money: " + "; ".join(f"`{kind.value}` ({kind.label.lower()})" for kind in EntryKind)
    )
    amount = serializers.IntegerField(help_text="Signed: negative leaves the wallet.")
    balance_after = serializers.IntegerField()
    round = serializers.CharField(allow_null=True, help_text="The round this line belongs to, if any.")
    reference = serializers.CharField(
        allow_null=True, help_text="A partner's transfer (`transfer_in`, `transfer_out`): the partner's reference."
    )
    created_at = serializers.DateTimeField()
