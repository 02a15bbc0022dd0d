"""Reads of the casino app."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta

from django.db import connection
from django.db.models import Count, Sum
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from accounts.models import Partner, Player
from casino.engine import ALL_CARDS, CasinoWarRules, HmacStream, card, server_seed_hash, shoe, shuffle, verify_round
from casino.engine.war import PRESETS, StealView
from casino.models import (
    Match,
    MatchStatus,
    Round,
    RoundStatus,
    SeedPair,
    Table,
    WalletCall,
    WalletCallKind,
    WalletCallStatus,
)
from casino.odds import casino_war_odds, decision_values
from casino.services.matches import MatchReplay
from casino.shapes import (
    DecisionValuesShape,
    FairnessShape,
    HouseEdgeShape,
    MatchBattleShape,
    MatchEventShape,
    MatchFairnessShape,
    MatchPageShape,
    MatchQuestionShape,
    MatchResultShape,
    MatchShape,
    NetsShape,
    PreviousSeedShape,
    RoundFairnessShape,
    RoundRulesShape,
    RoundShape,
    TableRulesShape,
    TableShape,
    WarCardsShape,
    WarPresetShape,
)
from core.rows import instances_from_row, select_list
from core.times import rfc3339

# The names of a table's bets, translated only for a bet found unfair: every round checks its
# table (`table_rules_fair`), and three translations per round are CPU spent for nothing.
_EVERY_BET = gettext_noop("every bet")
_BET_NAMES = (
    gettext_noop("main bet (going to war)"),
    gettext_noop("main bet (surrendering)"),
    gettext_noop("tie bet"),
)


def _unfair_bet_names(table: Table) -> list[str]:
    try:
        odds = casino_war_odds(table.decks, table.tie_pays, bool(table.tie_after_tie_bonus))
    except (TypeError, ValueError):
        return [_EVERY_BET]
    edges = (odds.house_edge_war, odds.house_edge_surrender, odds.house_edge_tie_bet)
    return [name for edge, name in zip(edges, _BET_NAMES, strict=True) if edge < 0]


def table_rules_unfair_bets(table: Table) -> list[str]:
    """The bets of the table's rules whose exact house edge (casino/odds) is below zero, in words;
    empty when every bet favours the house (or is even). Plain arithmetic on the table's values,
    whatever wrote them to the database: rules out of the odds' range count as unfair too."""
    return [gettext(name) for name in _unfair_bet_names(table)]


def table_rules_fair(table: Table) -> bool:
    return not _unfair_bet_names(table)


def table_list_open():
    """The open tables, but never one whose rules give the player the edge (table_rules_fair)."""
    return [table for table in Table.objects.filter(is_open=True).order_by("name") if table_rules_fair(table)]


def table_get(*, table_pk: int) -> Table | None:
    """The table, open or not, in one plain statement: every round placed starts here."""
    if not 1 <= table_pk < 2**63:
        return None  # no table has such an id (and PostgreSQL's bigint could not hold it)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {select_list(Table, 't')} FROM {Table._meta.db_table} t WHERE t.id = %s", [table_pk])
        row = cursor.fetchone()
    return None if row is None else instances_from_row(row, (Table,))[0]


def table_get_open(*, table_id: int) -> Table | None:
    table = table_get(table_pk=table_id)
    return table if table is not None and table.is_open and table_rules_fair(table) else None


def table_house_edge(*, table: Table) -> dict[str, float]:
    """The exact house edges of the table's rules, from the odds module."""
    return casino_war_odds(table.decks, table.tie_pays, table.tie_after_tie_bonus).as_json()


def table_representation(table: Table) -> TableShape:
    return TableShape(
        id=str(table.pk),
        name=table.name,
        currency=table.currency,
        min_bet=table.min_bet,
        max_bet=table.max_bet,
        bet_step=table.bet_step,
        max_tie_bet=table.max_tie_bet,
        rules=TableRulesShape(
            decks=table.decks,
            burn=table.burn,
            tie_pays=table.tie_pays,
            tie_after_tie_bonus=table.tie_after_tie_bonus,
            shuffle=table.shuffle,
            decision_timeout_s=table.decision_timeout_s,
        ),
        house_edge=HouseEdgeShape(**table_house_edge(table=table)),
    )


def round_list_for_player(*, player: Player):
    return Round.objects.filter(player=player).select_related("seed_pair").order_by("-created_at", "-id")


def round_awaiting_decision_id(*, player: Player, table: Table) -> uuid.UUID | None:
    """The newest of the player's rounds at this table that wait for a decision, if any."""
    return (
        Round.objects.filter(player=player, table=table, status=RoundStatus.AWAITING_DECISION)
        .values_list("id", flat=True)
        .first()
    )


def round_get_for_player(*, player: Player, round_id: uuid.UUID | str) -> Round | None:
    try:
        pk = uuid.UUID(str(round_id))
    except ValueError:
        return None
    return Round.objects.filter(pk=pk, player=player).select_related("seed_pair").first()


def round_decision_values(round_: Round) -> DecisionValuesShape | None:
    """What going to war and surrendering are worth (expected net per unit of the main bet),
    given the cards the player has seen in this shoe."""
    if round_.status != RoundStatus.AWAITING_DECISION:
        return None
    unseen: dict[int, int] = {}
    for c in shoe(round_.rules["decks"]):
        unseen[c.rank] = unseen.get(c.rank, 0) + 1
    seen = [round_.player_card, round_.dealer_card]
    if round_.rules.get("shuffle") == "persistent":
        earlier = Round.objects.filter(
            player=round_.player_id,
            table=round_.table_id,
            seed_pair=round_.seed_pair_id,
            shoe_nonce=round_.shoe_nonce,
            shoe_position__lt=round_.shoe_position,
        ).values_list("player_card", "dealer_card", "war_player_card", "war_dealer_card")
        seen += [code for row in earlier for code in row if code]
    for code in seen:
        unseen[card(code).rank] -= 1
    values = decision_values(unseen, tie_after_tie_bonus=round_.rules.get("tie_after_tie_bonus", False))
    return DecisionValuesShape(war=float(values["war"]), surrender=float(values["surrender"]))


DEFAULT_RULES = CasinoWarRules()


def round_rules(round_: Round) -> RoundRulesShape:
    """What the round pays and what the table decides for it, by the rules it was placed under
    (the table's may have changed since): the page writes its texts from these."""
    rules = round_.rules or {}  # CasinoWarRules.as_json(), stored when the round was placed
    return RoundRulesShape(
        tie_pays=rules.get("tie_pays", DEFAULT_RULES.tie_pays),
        tie_after_tie_bonus=bool(rules.get("tie_after_tie_bonus", DEFAULT_RULES.tie_after_tie_bonus)),
        # Overdue, a seamless round always surrenders (its raise would be a debit nobody asked for).
        house_rule="surrender" if round_.seamless else rules.get("house_rule", DEFAULT_RULES.house_rule.value),
    )


def round_representation(round_: Round) -> RoundShape:
    """A round as the public contract shows it (API.md), plus a few documented extras."""
    resolved = round_.status != RoundStatus.AWAITING_DECISION
    war = None
    if round_.war_player_card:
        war = WarCardsShape(player_card=round_.war_player_card, dealer_card=round_.war_dealer_card)
    pair, rules, nets = round_.seed_pair, round_.rules, round_.nets if resolved else None
    return RoundShape(
        id=str(round_.id),
        table=str(round_.table_id),
        status=round_.status,
        currency=round_.currency,
        main_bet=round_.main_bet,
        tie_bet=round_.tie_bet,
        raise_=round_.raise_bet,
        player_card=round_.player_card,
        dealer_card=round_.dealer_card,
        decision=round_.decision or None,
        war=war,
        outcome=round_.outcome or None,
        net=round_.net if resolved else None,
        payout=round_.payout if resolved else None,
        nets=NetsShape(main=nets["main"], raise_=nets["raise"], tie=nets["tie"], bonus=nets["bonus"]) if nets else None,
        decision_deadline=round_.decision_deadline if not resolved else None,
        decision_values=round_decision_values(round_),
        decision_timed_out=round_.decision_timed_out,
        rules=round_rules(round_),
        fairness=RoundFairnessShape(
            server_seed_hash=pair.server_seed_hash,
            client_seed=pair.client_seed,
            nonce=round_.nonce,
            server_seed=pair.server_seed if pair.revealed_at else None,
            decks=rules["decks"],
            burn=rules["burn"],
            shuffle=rules.get("shuffle", "fresh"),
            shoe_nonce=round_.shoe_nonce,
            shoe_position=round_.shoe_position,
        ),
        created_at=round_.created_at,
        resolved_at=round_.resolved_at,
        settled_at=round_.settled_at,
    )


def fairness_representation(*, player: Player, active: SeedPair) -> FairnessShape:
    previous = SeedPair.objects.filter(player=player, active=False).order_by("-revealed_at", "-id").first()
    return FairnessShape(
        server_seed_hash=active.server_seed_hash,
        client_seed=active.client_seed,
        nonce=active.next_nonce,
        next_server_seed_hash=server_seed_hash(active.next_server_seed),
        previous=None
        if previous is None
        else PreviousSeedShape(
            server_seed=previous.server_seed,
            server_seed_hash=previous.server_seed_hash,
            client_seed=previous.client_seed,
            last_nonce=previous.next_nonce - 1 if previous.next_nonce else None,
        ),
    )


def round_verification(round_: Round) -> str:
    """Recompute the round's cards from its revealed seed, as a player would."""
    pair = round_.seed_pair
    if pair.revealed_at is None:
        return "the seed is not revealed yet"
    rules = round_.rules
    if rules.get("shuffle") == "persistent":
        cards = [
            c.code
            for c in shuffle(shoe(rules["decks"]), HmacStream(pair.server_seed, pair.client_seed, round_.shoe_nonce))
        ]
        dealt = cards[round_.shoe_position : round_.shoe_position + 2]
    else:
        check = verify_round(
            server_seed=pair.server_seed,
            client_seed=pair.client_seed,
            nonce=round_.nonce,
            decks=rules["decks"],
            burn=rules["burn"],
            published_hash=pair.server_seed_hash,
        )
        if not check.hash_matches:
            return "FAILED: the seed does not match its published hash"
        dealt = [check.cards.player.code, check.cards.dealer.code]
    if dealt != [round_.player_card, round_.dealer_card]:
        return f"FAILED: the seed deals {dealt}, the round shows {[round_.player_card, round_.dealer_card]}"
    return "verified: the revealed seed deals exactly these cards"


def match_get(*, match_id: str, player: Player | None) -> Match | None:
    """A match its caller may see: a player's own matches, or a match dealt without signing in."""
    try:
        match = Match.objects.get(pk=uuid.UUID(str(match_id)))
    except (ValueError, Match.DoesNotExist):
        return None
    if match.player_id is not None and (player is None or match.player_id != player.pk):
        return None
    return match


MATCH_PAGE_BATTLES = 1_000  # battles (with their events) in one answer, unless the caller asks fewer or more
MATCH_PAGE_MAX = 2_000  # about 1.2 MB of JSON at most (four seats); a page is a replay of the whole match


def match_representation(
    match: Match,
    replay: MatchReplay,
    *,
    offset: int = 0,
    limit: int = MATCH_PAGE_BATTLES,
    page_url: Callable[[int], str],
) -> MatchShape:
    """The match with its deal, a page of its battles (from `offset`, at most `limit`) and their
    events, and, in Steal War, the pending question. The first page also has the events before
    the first battle; the last one every event after its battles (a paused battle's).
    `page.next`: `page_url(where the next page starts)`, None on the last."""
    pending = replay.pending
    question = None
    if isinstance(pending, StealView):
        question = MatchQuestionShape(
            kind="steal",
            seat=pending.seat,
            card=pending.card.code,
            targets=list(pending.targets),
            pile_sizes=list(pending.pile_sizes),
            pile_tops=[None if c is None else c.code for c in pending.pile_tops],
            battle=pending.battle,
            in_war=pending.in_war,
        )
    elif pending is not None:
        question = MatchQuestionShape(
            kind="top", seat=pending.seat, cards=[c.code for c in pending.cards], battle=pending.battle
        )
    finished = match.status == MatchStatus.FINISHED
    revealed = finished or match.human_seat is None  # a person deciding must not see what comes next
    game = replay.game
    total = len(replay.battles)
    last_page = offset + limit >= total
    events = [
        MatchEventShape(**e.as_json())
        for e in replay.events
        if (e.battle > offset or offset == 0) and (last_page or e.battle <= offset + limit)
    ]
    return MatchShape(
        id=str(match.id),
        preset=match.preset,
        options=match.options,
        seats=len(replay.deal),
        human_seat=match.human_seat,
        status=match.status,
        fairness=MatchFairnessShape(
            server_seed_hash=match.server_seed_hash,
            server_seed=match.server_seed if revealed else None,
            client_seed=match.client_seed,
            nonce=0,
        ),
        deal=[[ALL_CARDS[c].code for c in stock] for stock in replay.deal] if revealed else None,
        deal_counts=[len(stock) for stock in replay.deal],
        result=MatchResultShape(**game.result.as_json()) if game is not None else None,
        battles=[MatchBattleShape(**b.as_json()) for b in replay.battles[offset : offset + limit]],
        events=events,
        page=MatchPageShape(
            offset=offset, limit=limit, battles=total, next=None if last_page else page_url(offset + limit)
        ),
        pending=question,
        created_at=rfc3339(match.created_at),
        finished_at=rfc3339(match.finished_at),
    )


def war_presets() -> list[WarPresetShape]:
    return [
        WarPresetShape(
            name=p.name,
            family=p.family.value,
            seats=list(p.seats),
            deck_size=p.deck_size,
            defaults=p.defaults,
            accepts_jokers=p.accepts_jokers,
            description=p.description,
        )
        for p in PRESETS.values()
    ]


# --- Seamless wallets' calls --------------------------------------------------------------------------

# A call still pending this long after it was made is past its retries (`partner_reconcile` fails):
# by then a credit or rollback has been attempted some 25 times, at most 30 s apart, and a debit's
# request is long gone; what is left needs a person (the partner's wallet down, or refusing it).
WALLET_CALL_OVERDUE_AFTER = timedelta(minutes=15)


def _day_calls(*, partner: Partner, day: date):
    start = datetime.combine(day, time.min, tzinfo=UTC)
    return WalletCall.objects.filter(partner=partner, created_at__gte=start, created_at__lt=start + timedelta(days=1))


def wallet_calls_acknowledged_by_currency(*, partner: Partner, day: date) -> dict[str, dict[str, dict[str, int]]]:
    """A UTC day's calls (made that day) that the partner's wallet acknowledged, counted and
    totalled per currency and kind: {"EUR": {"debits": {"count", "total"}, "credits": ..., "rollbacks": ...}}.
    A rollback's total is its debit's amount."""
    rows = (
        _day_calls(partner=partner, day=day)
        .filter(status=WalletCallStatus.ACKNOWLEDGED)
        .values("currency", "kind")
        .annotate(count=Count("id"), total=Sum("amount"))
        .order_by()
    )
    figures: dict[str, dict[str, dict[str, int]]] = {}
    for row in rows:
        kinds = figures.setdefault(row["currency"], {k: {"count": 0, "total": 0} for k in RECONCILED_KINDS.values()})
        kinds[RECONCILED_KINDS[row["kind"]]] = {"count": row["count"], "total": row["total"] or 0}
    return figures


RECONCILED_KINDS = {"debit": "debits", "credit": "credits", "rollback": "rollbacks"}


def wallet_calls_pending(*, partner: Partner, day: date) -> list[dict]:
    """The day's calls still pending, oldest first, each marked `overdue` when past its retries."""
    now = timezone.now()
    return [
        {
            "transaction_id": call.transaction_id,
            "kind": call.kind,
            "amount": call.amount,
            "currency": call.currency,
            "player": call.player.external_id,
            "round": str(call.round_id),
            "attempts": call.attempts,
            "last_error": call.last_error,
            "created_at": rfc3339(call.created_at),
            "overdue": call.created_at <= now - WALLET_CALL_OVERDUE_AFTER,
        }
        for call in _day_calls(partner=partner, day=day)
        .filter(status=WalletCallStatus.PENDING)
        .select_related("player")
        .order_by("created_at")
    ]


def wallet_debits_unanswered(*, partner: Partner, day: date) -> dict:
    """The day's debits that got no usable answer in time (none within WALLET_TIMEOUT_S, a 5xx, a
    lost connection) and were rolled back: the partner's wallet may have applied some of them (a
    `200` after our timeout), which their rollback then undid. Not in `debits`; their rollbacks are
    in `rollbacks` once acknowledged, so these say which rollbacks may name a debit that never
    happened at the partner."""
    debits = (
        _day_calls(partner=partner, day=day)
        .filter(kind=WalletCallKind.DEBIT, status=WalletCallStatus.FAILED)
        .order_by("created_at")
        .values_list("transaction_id", "amount")
    )
    return {
        "count": len(debits),
        "total": sum(amount for _, amount in debits),
        "transaction_ids": [transaction_id for transaction_id, _ in debits],
    }


def wallet_calls_reconcile(*, partner: Partner, day: date) -> dict:
    """What `partner_reconcile` prints (API.md): the day's acknowledged calls per kind, their totals
    in minor units (a partner's players share one currency in practice; the back office page shows
    them per currency), every call still pending, and the debits without a usable answer
    (docs/PARTNERS.md "Reconciliation" says how the partner's figures and these meet)."""
    report = {"partner": partner.name, "date": day.isoformat()}
    for kind in RECONCILED_KINDS.values():
        report[kind] = {"count": 0, "total": 0}
    for kinds in wallet_calls_acknowledged_by_currency(partner=partner, day=day).values():
        for kind, figures in kinds.items():
            report[kind]["count"] += figures["count"]
            report[kind]["total"] += figures["total"]
    report["unanswered_debits"] = wallet_debits_unanswered(partner=partner, day=day)
    report["pending"] = wallet_calls_pending(partner=partner, day=day)
    return report
