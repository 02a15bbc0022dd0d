"""Player protection's answers, each declared once (core/shapes.py): the selectors make them, the
API sends them, the protection page shows them, and /api/schema/ documents them."""

from __future__ import annotations

from datetime import datetime

from core.shapes import shape, shape_field
from protection.models import REALITY_CHECK_MINUTES, ExclusionKind, LimitKind, LimitPeriod


@shape
class LimitPendingShape:
    amount: int | None
    effective_from: datetime


@shape
class LimitShape:
    kind: LimitKind
    period: LimitPeriod
    amount: int | None = shape_field("In force now (null: none)")
    used: int = shape_field("Deposited, lost or staked in the period so far")
    pending: LimitPendingShape | None = shape_field("An increase or removal cooling off for 24 hours")


@shape
class ExclusionShape:
    kind: ExclusionKind
    ends_at: datetime


@shape
class RealityCheckShape:
    interval_minutes: int = shape_field(
        f"0 (never) or {REALITY_CHECK_MINUTES[0]} to {REALITY_CHECK_MINUTES[1]}",
        min_value=0,
        max_value=REALITY_CHECK_MINUTES[1],
    )


@shape
class SessionFiguresShape:
    started_at: datetime
    elapsed_s: int
    rounds: int
    staked: int
    net: int
    next_reality_check_at: datetime | None


@shape
class ProtectionShape:
    limits: list[LimitShape]
    exclusion: ExclusionShape | None
    reality_check: RealityCheckShape
    session: SessionFiguresShape
