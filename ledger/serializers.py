"""The one amount field every API takes money with (the ledger's answers are ledger/shapes.py's)."""

from __future__ import annotations

from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.fields import empty

from core.api import StrictIntegerField
from core.errors import InvalidAmount
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
