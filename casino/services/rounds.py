"""Placing a round and deciding it: each one database transaction.

A round's cards come from the player's provably fair stream for its nonce (a fresh shoe), or
from the player's persistent shoe at the table; a decision replays the same cards, so nothing
but the round row has to be kept between the deal and the decision.
"""

from __future__ import annotations

import copy
import functools
import logging
import math
import time
import uuid
from collections.abc import Callable
from contextlib import nullcontext
from datetime import datetime, timedelta

from celery import current_app
from django.db import DatabaseError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import Player
from casino import sql
from casino.engine import (
    Action,
    BetOffTableError,
    CasinoWarRules,
    FreshShoe,
    HmacStream,
    Phase,
    RoundState,
    ShuffleMode,
    StackedShoe,
    decide,
    place_bets,
    shoe,
    shuffle,
)
from casino.models import Round, RoundStatus, SeedPair, ShoeState, Table, WalletCallStatus
from casino.selectors import table_get, table_rules_fair
from casino.services.fairness import seed_pair_active
from casino.services.settlement import CLOCK_MARGIN_S, broker_task_send, broker_window_send, settlement_enqueue
from casino.services.wallets import wallet_debit_refusal
from core import clock
from core.actors import Actor
from core.after_commit import after_commit
from core.errors import (
    BetOutOfLimits,
    InsufficientFunds,
    NotFound,
    RoundNotAwaitingDecision,
    TableClosed,
    UnknownTable,
    WalletCurrencyMismatch,
)
from core.idempotency import RequestKey
from core.rows import instance_new
from core.transactions import ReadChangedBeforeWrite, atomic_step, retried_on_conflict
from ledger import sql as ledger_sql
from ledger.money import format_money
from ledger.services import player_accounts_lock
from protection.selectors import limits_by_kind_and_period
from protection.services import STAKE_GUARD_KINDS, protection_check_stake

logger = logging.getLogger(__name__)

HOUSE_RULE_BATCH = 50  # overdue rounds decided per transaction
# Each round awaiting a decision asks a worker for the house rule once its deadline has passed,
# so a deadline holds with beat down and nobody playing. Deadlines are asked for by windows, as
# settlement is (casino/services/settlement.py `broker_window_send`): the deadlines of one window
# (DEADLINE_WINDOW_S of deadline time, a Redis key per window) share one delayed task, which runs
# once the window has closed and takes the house rule for every overdue round, in batches. A window
# costs one message whatever the rate of ties; a decision is up to one window later than its
# deadline. A process remembers the windows it knows of, so a tie whose window is known asks Redis
# nothing. A wait longer than DEADLINE_HOP_S is taken in hops: a message held by a worker longer than
# Redis's visibility timeout (300 s) would be delivered twice.
DECIDE_DUE_TASK = "casino.decide_due"  # casino/tasks.py: asked for by name
DEADLINE_WINDOW_KEY = "casino:deadlines:window"
DEADLINE_WINDOW_S = 0.25
DEADLINE_HOP_S = 120
_known_deadline_windows: frozenset[int] = frozenset()  # windows this process queued or found open


def _rules(round_: Round) -> CasinoWarRules:
    return CasinoWarRules(**round_.rules)


def _card_source(*, rules: CasinoWarRules, pair: SeedPair, nonce: int, shoe_nonce: int, position: int):
    """A round's cards from its first one: a fresh shoe from the round's own nonce, or the
    persistent shoe shuffled from `shoe_nonce`, dealt from `position`."""
    if rules.shuffle is ShuffleMode.FRESH:
        return FreshShoe(rules.decks, HmacStream(pair.server_seed, pair.client_seed, nonce))
    shuffled = shuffle(shoe(rules.decks), HmacStream(pair.server_seed, pair.client_seed, shoe_nonce))
    return StackedShoe(shuffled[position:])


def _cards_of(round_: Round):
    """The round's card source, replayable at any time."""
    return _card_source(
        rules=_rules(round_),
        pair=round_.seed_pair,
        nonce=round_.nonce,
        shoe_nonce=round_.shoe_nonce,
        position=round_.shoe_position,
    )


def _persistent_position(
    *, player: Player, table: Table, pair: SeedPair, nonce: int, rules: CasinoWarRules
) -> ShoeState:
    """The player's shoe at this table, reshuffled (from this round's nonce) when the cut card is
    out, the seed pair changed, or the shoe could not finish a war."""
    state = ShoeState.objects.select_for_update().filter(player=player, table=table).first()
    size = 52 * rules.decks
    needed = 4 + rules.burn
    if state is None or state.seed_pair_id != pair.pk or state.position >= state.cut or state.position + needed > size:
        cut = size * rules.penetration // 100
        if state is None:
            state = ShoeState(player=player, table=table)
        state.seed_pair = pair
        state.shuffle_nonce = nonce
        state.position = 0
        state.cut = cut
        state.save()
    return state


def bet_limits_text(table: Table) -> str:
    """Why a bet is off the table, in the caller's language and money format."""

    def money(amount: int) -> str:
        return format_money(amount, table.currency)

    text = gettext("a main bet at %(table)s is %(low)s to %(high)s in steps of %(step)s") % {
        "table": table.name,
        "low": money(table.min_bet),
        "high": money(table.max_bet),
        "step": money(table.bet_step),
    }
    if table.max_tie_bet:
        text += "; " + gettext("a tie bet is 0 or up to %(high)s in the same steps") % {
            "high": money(table.max_tie_bet)
        }
    else:
        text += "; " + gettext("this table takes no tie bet")
    return text


def _check_table(table: Table | None, *, table_id: int, player: Player, main: int, tie: int) -> Table:
    if table is None:
        raise UnknownTable(gettext("there is no table %(table)r") % {"table": table_id})
    if not table.is_open:
        raise TableClosed(gettext("%(table)s is closed") % {"table": table.name})
    if not table_rules_fair(table):  # never played, whatever the database says (casino/services/tables.py)
        raise TableClosed(gettext("%(table)s is closed") % {"table": table.name})
    if table.currency != player.currency:
        raise WalletCurrencyMismatch(
            gettext("%(table)s plays in %(currency)s, the wallet holds %(wallet)s")
            % {"table": table.name, "currency": table.currency, "wallet": player.currency}
        )
    try:
        table.limits.check(main=main, tie=tie)
    except BetOffTableError:
        raise BetOutOfLimits(bet_limits_text(table)) from None
    return table


def table_id_checked(table_id: int) -> None:
    """A table id no table can have (outside bigint) is refused before any statement takes it."""
    if not 1 <= table_id < 2**63:
        raise UnknownTable(gettext("there is no table %(table)r") % {"table": table_id})


def stake_guard_kinds() -> list[str]:
    """The protection kinds a round's first statement reads (`protection_stake_guards`)."""
    return [str(kind) for kind in STAKE_GUARD_KINDS]


def _opened(
    *, player: Player, table_id: int, at: datetime, request_key: RequestKey | None = None, locked: bool = True
) -> sql.Opened:
    """The round's first statement (casino/sql/): the player's seed pair (locked, if `locked`), the
    table, the player's exclusion and limits and its accounts, and with `request_key` the request's
    idempotency claim (which leaves here unless this request took the key); a player's first
    round makes its seed pair."""
    reads = {
        "player_id": player.pk,
        "currency": player.currency,
        "table_id": table_id,
        "guard_kinds": stake_guard_kinds(),
        "at": at,
        "locked": locked,
    }
    if request_key is not None:
        claimed = sql.round_open_claiming(claim=request_key.claim_params(), **reads)
        request_key.claimed(claimed.claim)
        opened = claimed.opened
    else:
        opened = sql.round_open(**reads)
    if opened is None:
        if table_get(table_pk=table_id) is None:
            raise UnknownTable(gettext("there is no table %(table)r") % {"table": table_id})
        seed_pair_active(player=player)  # the player's first round: make the pair, then lock it
        opened = sql.round_open(**reads)
    return opened


def round_stake_check(*, player: Player, table_id: int, main_bet: int, tie_bet: int = 0) -> Table:
    """What placing the round would check first, without placing it: the table and its limits, the
    player's protection (limits, exclusion). A seamless player's round is checked so before its
    stake is debited from the partner's wallet, and again when it is placed."""
    table_id_checked(table_id)
    with transaction.atomic():  # the seed pair's lock is released at once: nothing is written
        now = clock.now()
        opened = _opened(player=player, table_id=table_id, at=now)
        return round_stake_checks(player=player, opened=opened, table_id=table_id, main_bet=main_bet, tie_bet=tie_bet)


def round_stake_checks(*, player: Player, opened: sql.Opened, table_id: int, main_bet: int, tie_bet: int) -> Table:
    """`round_stake_check`'s checks on what a round's first statement read (`opened`)."""
    table = _check_table(opened.table, table_id=table_id, player=player, main=main_bet, tie=tie_bet)
    protection_check_stake(
        player=player, amount=main_bet + tie_bet, guards=(opened.excluded, limits_by_kind_and_period(opened.limits))
    )
    return table


def round_place(
    *,
    player: Player,
    table_id: int,
    main_bet: int,
    tie_bet: int = 0,
    actor: Actor,
    round_id: uuid.UUID | None = None,
    request_key: RequestKey | None = None,
    funding: sql.Funding | None = None,
    read_before: sql.Opened | None = None,
) -> Round:
    """Place a round of `main_bet` (and `tie_bet`) minor units at the table: deal it, and stake
    the bets from the wallet. Refused by the table (closed, another currency, the bets off its
    limits), the player's protection (limits, exclusion) or the wallet (insufficient funds).

    Two statements: one locks the player's seed pair (a player's rounds are serialised, and each
    gets its own nonce) and reads what the checks need; the checks and the deal run here; one
    writes the round, its audit event and its stake (casino/sql/). Limits are checked under that
    lock and in the staking transaction: concurrent rounds of one player cannot together overshoot
    a limit. `round_id`: the id chosen before (a seamless round's, which its debit carries).
    `request_key`: the API request's Idempotency-Key (core/idempotency.py `idempotent_folded`),
    claimed in the first statement and its response stored in the second; with its `autocommit`,
    each statement commits alone: the first reads the seed pair without locking it, and the second
    counts the nonce only if no other round came first (else `ReadChangedBeforeWrite`, nothing
    written: the caller runs it again in a transaction), so limits are still checked against every
    round of the player. `funding`: a seamless
    round's debit, answered 200 by the partner's wallet: the statement that posts the stake
    acknowledges it (its row locked after the seed pair) and pays it into the wallet in the same
    posting (its accounts locked together, after the seed pair, as every round locks them;
    docs/ARCHITECTURE.md "Lock order"). `read_before`: what an earlier statement of the request
    read as the first one reads (a seamless stake's first, which claimed the key and committed,
    before the partner's wallet was called): with `request_key.autocommit`, the round is then
    placed by its second statement alone, checked against that read; the nonce's count finds any
    round of the player (or new seed pair) that came between, and the round is then placed again
    as above, in a transaction."""
    main, tie = main_bet, tie_bet
    table_id_checked(table_id)
    alone = request_key is not None and request_key.autocommit  # each statement commits alone
    # Else nested: a savepoint, so a refusal leaves the caller's transaction usable.
    with nullcontext() if alone else atomic_step():
        now = clock.now()  # protection's clock: limits and exclusions are read at this moment
        if alone and read_before is not None:
            request_key.claim_carried()
            opened = read_before
        else:
            opened = _opened(player=player, table_id=table_id, at=now, request_key=request_key, locked=not alone)
        table = _check_table(opened.table, table_id=table_id, player=player, main=main, tie=tie)
        protection_check_stake(
            player=player, amount=main + tie, guards=(opened.excluded, limits_by_kind_and_period(opened.limits))
        )
        # A persistent shoe's position is written with the round, so together in a transaction.
        persistent = table.rules.shuffle is ShuffleMode.PERSISTENT
        with atomic_step() if alone and persistent else nullcontext():
            return _round_dealt_and_written(
                player=player,
                table=table,
                opened=opened,
                now=now,
                main=main,
                tie=tie,
                actor=actor,
                round_id=round_id or uuid.uuid4(),
                request_key=request_key,
                funding=funding,
                alone=alone,
            )


def _round_dealt_and_written(
    *,
    player: Player,
    table: Table,
    opened: sql.Opened,
    now: datetime,
    main: int,
    tie: int,
    actor: Actor,
    round_id: uuid.UUID,
    request_key: RequestKey | None,
    funding: sql.Funding | None,
    alone: bool,
) -> Round:
    """`round_place` once its checks passed: the round dealt and written by its second statement.
    `alone`: the seed pair was read without its lock; another round of the player (or a new pair)
    that came first is found by the write, which then writes nothing (`ReadChangedBeforeWrite`)."""
    pair, wallet_id, in_play_id = opened.pair, opened.wallet_id, opened.in_play_id
    rules = table.rules
    nonce = pair.next_nonce
    if rules.shuffle is ShuffleMode.FRESH:
        shoe_nonce, position = nonce, 0
    else:
        shoe_state = _persistent_position(player=player, table=table, pair=pair, nonce=nonce, rules=rules)
        shoe_nonce, position = shoe_state.shuffle_nonce, shoe_state.position
    cards = _card_source(rules=rules, pair=pair, nonce=nonce, shoe_nonce=shoe_nonce, position=position)
    state = place_bets(rules=rules, main=main, tie=tie, cards=cards)
    if rules.shuffle is ShuffleMode.PERSISTENT:
        # A tie reserves the burned and war cards now, so the next round starts after them.
        used = 2 if state.phase is Phase.RESOLVED else 4 + rules.burn
        ShoeState.objects.filter(pk=shoe_state.pk).update(position=F("position") + used)

    round_ = instance_new(  # as Round(...) makes it; casino_round_place writes it
        Round,
        id=round_id,
        player=player,
        table=table,
        currency=table.currency,
        rules=rules.as_json(),
        main_bet=main,
        tie_bet=tie,
        player_card=state.player_card.code,
        dealer_card=state.dealer_card.code,
        seed_pair=pair,
        nonce=nonce,
        shoe_nonce=shoe_nonce,
        shoe_position=position,
        placed_by_type=actor.type,
        placed_by_id=str(actor.id),
        created_at=now,
        seamless=player.is_seamless,
    )
    if state.phase is Phase.RESOLVED:
        _apply_resolution(round_, state, now)
    else:
        round_.status = RoundStatus.AWAITING_DECISION
        round_.decision_deadline = now + timedelta(seconds=table.decision_timeout_s)
        round_.nets = state.nets.as_dict()
    pair.next_nonce = nonce + 1  # as the statement leaves it
    try:
        stored = sql.round_place(
            round_=round_,
            audit={"main_bet": main, "tie_bet": tie, "nonce": nonce, "status": round_.status},
            stake_key=f"round:{round_id}:stake",
            stake_reason="main and tie bets" if tie else "main bet",
            wallet_id=wallet_id,
            in_play_id=in_play_id,
            stake=main + tie,
            store=request_key.store_params(round_) if request_key is not None else None,
            funding=funding,
        )
    except DatabaseError as exc:
        if alone and getattr(exc.__cause__, "sqlstate", None) == sql.NONCE_TAKEN:
            raise ReadChangedBeforeWrite() from exc
        _raise_refusal(exc)
    if request_key is not None:
        request_key.stored(stored)
    round_._state.adding = False  # it is a row now
    if round_.status == RoundStatus.RESOLVED:
        after_commit(functools.partial(settlement_enqueue, round_id), what=f"queueing settlement of round {round_id}")
    else:
        after_commit(
            functools.partial(round_deadline_enqueue, round_.decision_deadline),
            what=f"queueing the deadline of round {round_id}",
        )
    return round_


def round_deadline_enqueue(deadline: datetime) -> None:
    """After the commit of a round awaiting a decision: make sure a worker takes the house rule
    once the window of its deadline has closed (`rounds_decide_when_due`), unless someone decides
    first. Never raises. Without a broker (eager) nothing is queued: reads, decisions and beat's
    sweeper keep the deadline then."""
    global _known_deadline_windows
    window = math.ceil(deadline.timestamp() / DEADLINE_WINDOW_S)
    known = _known_deadline_windows
    if window in known:  # first: the common case, and reading Celery's conf costs more
        return  # the task of that window runs after it closes, and finds this round
    if current_app.conf.task_always_eager:
        return
    ends = window * DEADLINE_WINDOW_S
    sent = broker_window_send(
        f"{DEADLINE_WINDOW_KEY}:{window}",
        seconds=ends - time.time(),
        name=DECIDE_DUE_TASK,
        args=[ends],
        longest_s=DEADLINE_HOP_S,
        what=f"the deadlines of window {window}",
    )
    if sent is not None:  # forget the windows closed by now (a frozenset: threads read it unlocked)
        now = time.time() / DEADLINE_WINDOW_S
        _known_deadline_windows = frozenset([window, *(w for w in known if w > now)])


def rounds_decide_when_due(*, ends: float) -> int:
    """The worker's task for a window of deadlines ending at `ends` (Unix time): the house rule for
    every round whose deadline has passed (`rounds_decide_timed_out`, waiting for busy accounts);
    early (a long wait taken in hops, this host's clock behind), queued again for the rest."""
    wait = ends - time.time()
    if wait > 0:
        broker_task_send(
            DECIDE_DUE_TASK,
            args=[ends],
            countdown=min(wait, DEADLINE_HOP_S) + CLOCK_MARGIN_S,
            what=f"the deadlines until {ends}",
        )
        return 0
    return rounds_decide_timed_out(wait_for_accounts=True)


def _raise_refusal(exc: DatabaseError) -> None:
    """A refusal the database made for a round's write, as the service's error; anything else as it is."""
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    if sqlstate == ledger_sql.INSUFFICIENT_FUNDS:
        raise InsufficientFunds(gettext("the wallet does not hold enough money for this")) from None
    if sqlstate == sql.NOT_AWAITING_DECISION:
        raise RoundNotAwaitingDecision(gettext("the round is no longer awaiting a decision")) from None
    if sqlstate == sql.DEBIT_GIVEN_UP:  # a seamless round's debit, given up by the sweeper meanwhile
        raise wallet_debit_refusal(WalletCallStatus.FAILED) from None
    if sqlstate == sql.DEBIT_REFUSED:
        raise wallet_debit_refusal(WalletCallStatus.REFUSED) from None
    raise exc


def _apply_resolution(round_: Round, state: RoundState, now: datetime) -> None:
    round_.status = RoundStatus.RESOLVED
    round_.outcome = state.outcome.value
    round_.nets = state.nets.as_dict()
    round_.net = state.nets.total
    round_.payout = state.payout
    round_.raise_bet = state.raise_bet
    round_.resolved_at = now
    round_.decision = state.decision.value if state.decision is not None else ""
    round_.burned = " ".join(c.code for c in state.burned) if state.decision is not None else ""
    war = state.decision is not None and state.player_war_card is not None
    round_.war_player_card = state.player_war_card.code if war else ""
    round_.war_dealer_card = state.dealer_war_card.code if war else ""


def _decided(round_: Round, action: Action, actor: Actor, *, timed_out: bool) -> Round:
    """The round as `action` leaves it: its cards replayed, the decision taken (a copy: the
    caller's round stays as it was)."""
    rules = _rules(round_)
    cards = _cards_of(round_)
    state = place_bets(rules=rules, main=round_.main_bet, tie=round_.tie_bet, cards=cards)
    if state.phase is not Phase.AWAITING_DECISION or state.player_card.code != round_.player_card:
        raise RuntimeError(f"round {round_.id} does not replay to its dealt cards")
    state = decide(state, action, cards)
    decided = copy.copy(round_)
    now = timezone.now()
    _apply_resolution(decided, state, now)
    decided.decided_by_type = actor.type
    decided.decided_by_id = str(actor.id)
    decided.decided_at = now
    decided.decision_timed_out = timed_out
    return decided


def _decision(decided: Round, action: Action, *, wallet_id: int, in_play_id: int) -> sql.Decision:
    """What the database writes for a decided round (casino/sql/): the round, its audit event, the raise."""
    return sql.Decision(
        round_=decided,
        audit={"decision": action.value, "timed_out": decided.decision_timed_out, "outcome": decided.outcome},
        raise_key=f"round:{decided.id}:raise" if action is Action.WAR else None,
        wallet_id=wallet_id,
        in_play_id=in_play_id,
    )


def _settle_after_commit(round_id: uuid.UUID) -> None:
    after_commit(functools.partial(settlement_enqueue, round_id), what=f"queueing settlement of round {round_id}")


def _resolve_decision(
    round_: Round, action: Action, actor: Actor, *, timed_out: bool, wallet_id: int, in_play_id: int
) -> Round:
    """Replay the round's cards, take `action` and write the result (and the raise, for war) in
    one statement (casino/sql/). Refused for funds, the round is as it was."""
    decided = _decided(round_, action, actor, timed_out=timed_out)
    decision = _decision(decided, action, wallet_id=wallet_id, in_play_id=in_play_id)
    try:
        sql.round_decide(**decision._asdict())
    except DatabaseError as exc:
        _raise_refusal(exc)
    _settle_after_commit(round_.id)
    return decided


def round_decide(
    *,
    player: Player,
    round_id: str,
    action: Action,
    actor: Actor,
    before_staking: Callable[[Round, int], None] | None = None,
) -> Round:
    """Go to war (staking the raise) or surrender, on a round waiting for a decision.
    `before_staking(round, wallet account id)` runs with the round's row held, before the raise is
    staked (a seamless round's raise is paid into the wallet there)."""
    action = Action(action)
    with atomic_step():
        found = sql.round_for_decision(round_id=_uuid_or_404(round_id), player_id=player.pk)
        if found is None:
            raise NotFound(gettext("no such round"))
        round_, wallet_id, in_play_id = found.round, found.wallet_id, found.in_play_id
        if round_.status != RoundStatus.AWAITING_DECISION:
            raise RoundNotAwaitingDecision(gettext("the round is %(status)s") % {"status": round_.status})
        if before_staking is not None:
            before_staking(round_, wallet_id)
        return _resolve_decision(round_, action, actor, timed_out=False, wallet_id=wallet_id, in_play_id=in_play_id)


def _uuid_or_404(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise NotFound(gettext("no such round")) from None


def rounds_decide_timed_out(*, limit: int = 500, wait_for_accounts: bool = False) -> int:
    """Take the table's house rule for every round whose decision is overdue (go to war, or
    surrender when the wallet cannot cover the raise), logged as taken by the system. Run by the
    worker when a window of deadlines closes (`rounds_decide_when_due`: it waits for busy accounts,
    so a beat that is down delays nothing), and by beat (it leaves them for its next run)."""
    due = list(
        Round.objects.filter(status=RoundStatus.AWAITING_DECISION, decision_deadline__lte=timezone.now())
        .order_by("decision_deadline")
        .values_list("id", flat=True)[:limit]
    )
    decided = _rounds_take_house_rule(due, wait_for_accounts=wait_for_accounts)
    if decided:
        logger.info("took the house rule for %d overdue decisions", decided)
    return decided


def rounds_decide_overdue_for_player(*, player: Player) -> int:
    """Take the house rule for the player's rounds past their decision deadline, before anyone
    (the player, their partner) reads or acts on them: a round is decided on time even when no
    job runs. One indexed read when nothing is overdue. Commits on its own: call it outside the
    caller's transaction (a refusal that follows must not undo the house's decision)."""
    due = list(
        Round.objects.filter(
            player=player, status=RoundStatus.AWAITING_DECISION, decision_deadline__lte=timezone.now()
        ).values_list("id", flat=True)
    )
    return _rounds_take_house_rule(due, wait_for_accounts=True) if due else 0


def _rounds_take_house_rule(round_ids: list[uuid.UUID], *, wait_for_accounts: bool = False) -> int:
    """The house rule for these rounds, a batch per transaction: the rounds read and locked in one
    statement (those another transaction holds left alone), their players' accounts locked and
    their balances read in one more, then every decision written by one statement (casino/sql/).
    War when the wallet can pay the raise, else surrender; a seamless round surrenders (its raise
    would be a debit nobody asked for). Accounts busy right now leave their round to the next run,
    unless `wait_for_accounts` (a player reading their rounds waits for the decision)."""
    actor = Actor.system("decision_timeout")

    def batch(ids: list[uuid.UUID]) -> int:
        with transaction.atomic():
            found = sql.rounds_for_decision(round_ids=ids, status=RoundStatus.AWAITING_DECISION)
            if not found:
                return 0  # decided meanwhile, or being decided right now
            # Each round's cards replayed under the house rule before its player's accounts are
            # locked: a round being placed for that player meanwhile waits for the writing only,
            # not for the replays (docs/BENCHMARKS.md, "The 1-client tail").
            ruled = []
            for round_, wallet_id, in_play_id in found:  # sql.ForDecision
                action = Action.SURRENDER if round_.seamless else Action(round_.rules.get("house_rule", Action.WAR))
                ruled.append((round_, wallet_id, in_play_id, action, _decided(round_, action, actor, timed_out=True)))
            balances = player_accounts_lock(
                account_ids=[i for one in found for i in (one.wallet_id, one.in_play_id)], wait=wait_for_accounts
            )
            decisions = []
            for round_, wallet_id, in_play_id, action, result in ruled:
                if wallet_id not in balances or in_play_id not in balances:
                    continue  # a round of this player is being placed or settled: the next run takes it
                if result.raise_bet > balances[wallet_id]:  # rare: the wallet cannot pay the raise
                    action = Action.SURRENDER
                    result = _decided(round_, action, actor, timed_out=True)
                balances[wallet_id] -= result.raise_bet
                decisions.append(_decision(result, action, wallet_id=wallet_id, in_play_id=in_play_id))
            if decisions:
                sql.rounds_decide(decisions=decisions)
                for decision in decisions:
                    _settle_after_commit(decision.round_.id)
        return len(decisions)

    what = "the house rule for overdue decisions"
    batches = [round_ids[start : start + HOUSE_RULE_BATCH] for start in range(0, len(round_ids), HOUSE_RULE_BATCH)]
    return sum(retried_on_conflict(functools.partial(batch, ids), what=what) for ids in batches)
