"""Tables: opening and closing them, and changing what they are (four eyes), all in the audit log.

A table's rules and limits decide what every bet at it is worth, so no one staff member changes
them: a new table or new rules or limits are proposed by one (`table_change_propose`) and
approved by another (`table_change_approve`), which applies them and records the table before
and after. No rules are ever served or played whose exact house edge (casino/odds) on any bet is
below zero: a proposal, an approval and opening a table refuse them here, and
`casino.selectors.table_rules_fair` (plain arithmetic, whatever the database holds) keeps a table
that has them out of the lobby and refuses its rounds.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from casino.models import Table, TableChange, TableChangeStatus
from casino.selectors import table_rules_unfair_bets
from core.actors import ActorType
from core.audit import audit_record
from core.errors import InvalidInput, StateConflict

RULE_FIELDS = ("decks", "burn", "tie_pays", "tie_after_tie_bonus", "shuffle", "penetration", "house_rule")
LIMIT_FIELDS = ("min_bet", "max_bet", "bet_step", "max_tie_bet", "decision_timeout_s")
TABLE_FIELDS = ("name", "currency", *LIMIT_FIELDS, *RULE_FIELDS)


def table_values(table: Table) -> dict:
    """What a change can change of a table, as plain values (the audit log's before and after)."""
    return {name: getattr(table, name) for name in TABLE_FIELDS}


def _check(values: dict, *, table: Table | None) -> None:
    """Refuse (`invalid_input`) values no table may have: those the model refuses (ranges, limits in
    order, an ISO currency), a name another table has, and rules with a bet the house loses on."""
    candidate = Table(pk=table.pk if table is not None else None, **values)
    candidate._state.adding = table is None  # its own name and id are not another table's
    try:
        candidate.full_clean(exclude=["is_open"])
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages)) from None
    unfair = table_rules_unfair_bets(candidate)
    if unfair:
        raise InvalidInput(
            gettext("these rules give the player the edge on the %(bets)s: every bet needs a house edge of 0 or more")
            % {"bets": ", ".join(unfair)}
        )


def table_change_check(*, table: Table | None, values: dict) -> None:
    """What a proposal and its approval check: values a table may have, and a change at all."""
    if table is not None and table_values(table) == values:
        raise InvalidInput(gettext("these are the table's rules and limits already"))
    _check(values, table=table)


def table_change_propose(*, table: Table | None, values: dict, reason: str, proposed_by: User) -> TableChange:
    """Propose a new table (`table` None) or new rules and limits for `table`; another staff member
    approves or rejects it."""
    if not reason.strip():
        raise InvalidInput(gettext("a table change needs a reason"))
    values = {name: values[name] for name in TABLE_FIELDS}
    table_change_check(table=table, values=values)
    with transaction.atomic():
        change = TableChange.objects.create(
            table=table,
            before=table_values(table) if table is not None else None,
            reason=reason.strip(),
            proposed_by=proposed_by,
            **values,
        )
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=proposed_by.pk,
            action="table.change_proposed",
            obj_type="table",
            obj_id=table.pk if table is not None else "new",
            change=change.pk,
            before=change.before,
            after=values,
        )
    return change


def _decidable(change: TableChange, staff: User) -> TableChange:
    change = TableChange.objects.select_for_update().get(pk=change.pk)
    if change.status != TableChangeStatus.PROPOSED:
        raise StateConflict(gettext("this table change was already decided"))
    if change.proposed_by_id == staff.pk:
        raise StateConflict(gettext("a different staff member must decide a table change (four eyes)"))
    return change


def table_change_approve(*, change: TableChange, approved_by: User) -> Table:
    """Apply the change: a new table (made closed), or the table's new rules and limits, if the
    table is still as it was proposed for. Rules change only while the table is closed: players
    never see them move under a bet; limits may change while it is open."""
    with transaction.atomic():
        change = _decidable(change, approved_by)
        values = {name: getattr(change, name) for name in TABLE_FIELDS}
        if change.table_id is None:
            _check(values, table=None)
            try:
                with transaction.atomic():
                    table = Table.objects.create(is_open=False, **values)
            except IntegrityError:
                raise StateConflict(gettext("another table took this name meanwhile")) from None
            before = None
        else:
            table = Table.objects.select_for_update().get(pk=change.table_id)
            before = table_values(table)
            if before != change.before:
                raise StateConflict(gettext("the table changed since this was proposed: propose again"))
            table_change_check(table=table, values=values)
            if table.is_open and any(values[name] != before[name] for name in (*RULE_FIELDS, "currency")):
                raise StateConflict(gettext("close the table before its rules or currency change"))
            for name, value in values.items():
                setattr(table, name, value)
            try:
                with transaction.atomic():
                    table.save(update_fields=[*TABLE_FIELDS, "updated_at"])
            except IntegrityError:
                raise StateConflict(gettext("another table took this name meanwhile")) from None
        change.table = table
        change.status, change.decided_by, change.decided_at = TableChangeStatus.APPROVED, approved_by, timezone.now()
        change.save(update_fields=["table", "status", "decided_by", "decided_at"])
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=approved_by.pk,
            action="table.created" if before is None else "table.changed",
            obj_type="table",
            obj_id=table.pk,
            change=change.pk,
            proposed_by=change.proposed_by_id,
            approved_by=approved_by.pk,
            before=before,
            after=values,
        )
    return table


def table_change_reject(*, change: TableChange, rejected_by: User) -> TableChange:
    with transaction.atomic():
        change = _decidable(change, rejected_by)
        change.status, change.decided_by, change.decided_at = TableChangeStatus.REJECTED, rejected_by, timezone.now()
        change.save(update_fields=["status", "decided_by", "decided_at"])
        audit_record(
            actor_type=ActorType.OPERATOR,
            actor_id=rejected_by.pk,
            action="table.change_rejected",
            obj_type="table",
            obj_id=change.table_id or "new",
            change=change.pk,
        )
    return change


def table_set_open(*, table: Table, is_open: bool, by_user: User) -> Table:
    """Open or close the table; a table whose rules give the player an edge is never opened."""
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if is_open and not table.is_open:
            unfair = table_rules_unfair_bets(table)
            if unfair:
                raise InvalidInput(
                    gettext("%(table)s gives the player the edge on the %(bets)s: it stays closed")
                    % {"table": table.name, "bets": ", ".join(unfair)}
                )
        if table.is_open != is_open:
            table.is_open = is_open
            table.save(update_fields=["is_open", "updated_at"])
            audit_record(
                actor_type="operator",
                actor_id=by_user.pk,
                action="table.opened" if is_open else "table.closed",
                obj_type="table",
                obj_id=table.pk,
                name=table.name,
            )
    return table
