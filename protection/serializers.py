"""Shapes of player protection's API: what it takes (validated) and what it answers."""

from __future__ import annotations

from rest_framework import serializers

from core.api import EnumField, StrictChoiceField, StrictIntegerField
from ledger.serializers import MinorUnitsField
from protection.models import ExclusionKind, LimitKind, LimitPeriod
from protection.services import REALITY_CHECK_MINUTES, SELF_EXCLUSION_MONTHS, TIMEOUT_DAYS


class LimitPendingSerializer(serializers.Serializer):
    amount = serializers.IntegerField(allow_null=True)
    effective_from = serializers.DateTimeField()


class LimitSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=LimitKind.choices)
    period = serializers.ChoiceField(choices=LimitPeriod.choices)
    amount = serializers.IntegerField(allow_null=True, help_text="In force now (null: none)")
    used = serializers.IntegerField(help_text="Deposited, lost or staked in the period so far")
    pending = LimitPendingSerializer(allow_null=True, help_text="An increase or removal cooling off for 24 hours")


class LimitSetSerializer(serializers.Serializer):
    kind = EnumField(LimitKind)
    period = EnumField(LimitPeriod)
    amount = MinorUnitsField(
        allow_null=True, help_text="Minor units; required: null (given explicitly) removes the limit after 24 hours"
    )


class ExclusionSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ExclusionKind.choices)
    ends_at = serializers.DateTimeField()


class ExclusionStartSerializer(serializers.Serializer):
    kind = EnumField(ExclusionKind)
    days = StrictIntegerField(
        required=False, min_value=TIMEOUT_DAYS[0], max_value=TIMEOUT_DAYS[1],
        help_text=f"A time-out: {TIMEOUT_DAYS[0]} to {TIMEOUT_DAYS[1]} days (required for one)",
    )  # fmt: skip
    months = StrictChoiceField(
        required=False, choices=sorted(SELF_EXCLUSION_MONTHS),
        help_text="A self-exclusion: 6, 12 or 60 months (required for one)",
    )  # fmt: skip


class RealityCheckSerializer(serializers.Serializer):
    interval_minutes = StrictIntegerField(
        min_value=0, max_value=REALITY_CHECK_MINUTES[1],
        help_text=f"0 (never) or {REALITY_CHECK_MINUTES[0]} to {REALITY_CHECK_MINUTES[1]}",
    )  # fmt: skip


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
