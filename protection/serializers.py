"""Shapes of the requests to player protection's API (validated); its answers are protection/shapes.py's."""

from __future__ import annotations

from rest_framework import serializers

from core.api import EnumField, StrictChoiceField, StrictIntegerField
from ledger.serializers import MinorUnitsField
from protection.models import REALITY_CHECK_MINUTES, ExclusionKind, LimitKind, LimitPeriod
from protection.services import SELF_EXCLUSION_MONTHS, TIMEOUT_DAYS


class LimitSetSerializer(serializers.Serializer):
    kind = EnumField(LimitKind)
    period = EnumField(LimitPeriod)
    amount = MinorUnitsField(
        allow_null=True, help_text="Minor units; required: null (given explicitly) removes the limit after 24 hours"
    )


class ExclusionStartSerializer(serializers.Serializer):
    kind = EnumField(ExclusionKind)
    days = StrictIntegerField(
        required=False,
        min_value=TIMEOUT_DAYS[0],
        max_value=TIMEOUT_DAYS[1],
        help_text=f"A time-out: {TIMEOUT_DAYS[0]} to {TIMEOUT_DAYS[1]} days (required for one)",
    )
    months = StrictChoiceField(
        required=False,
        choices=sorted(SELF_EXCLUSION_MONTHS),
        help_text="A self-exclusion: 6, 12 or 60 months (required for one)",
    )


class RealityCheckSerializer(serializers.Serializer):
    interval_minutes = StrictIntegerField(
        min_value=0,
        max_value=REALITY_CHECK_MINUTES[1],
        help_text=f"0 (never) or {REALITY_CHECK_MINUTES[0]} to {REALITY_CHECK_MINUTES[1]}",
    )
