"""Calls to seamless partners' wallets (API.md "Seamless wallet"): `balance`, `debit`, `credit` and
`rollback`, POSTed to `{wallet_url}/{call}` and signed like webhooks (core/outbound.py: public
addresses only, no redirect followed), with X-Nonce = the call's `transaction_id`.

* A debit is made while its request waits (casino/services/seamless.py), with no transaction
  open: its row is written and committed first, the wallet is called, and what it answered is
  written after. A debit with no usable answer is followed by a rollback of its transaction id.
* Credits and rollbacks form an outbox, like webhooks: written in the transaction that decides
  them, sent after commit by a task, and retried with backoff (never more than 30 s apart) until
  the partner answers 2xx, by the task and by a sweeper in beat (a dead worker, Redis down).
* Transaction ids never change for a call, so a repeated call is answered by the partner with its
  first result, and an attempt whose answer was lost costs nothing.
* Every answer is checked before anything of it is believed (`wallet_answer_problem`): a `200`
  whose body is not a JSON object of UTF-8 without NUL, whose `balance` is not an integer from 0 to
  MAX_PARTNER_BALANCE, or whose `transaction_id`, `reference`, `player`, `currency`, `amount` or
  `round` (when it says them) are not the call's, is "any other answer" (API.md): a debit so
  answered is `503 wallet_unavailable` and rolled back, a balance is not shown, a credit or
  rollback is not acknowledged and is tried again. Stored answers keep no NUL.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import secrets
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import Partner, Player
from casino import sql
from casino.models import WalletCall, WalletCallAttempt, WalletCallKind, WalletCallPurpose
from casino.models import WalletCallStatus as Status
from casino.services.webhooks import webhooks_create_for_rounds
from core.after_commit import after_commit, task_enqueue
from core.audit import audit_record
from core.errors import InsufficientFunds, ServiceError, WalletUnavailable
from core.models import AuditEvent
from core.outbound import CONNECT_TIMEOUT_S, OutboundAnswer, outbound_post
from core.parsers import json_loads_strict
from core.rows import instance_new
from core.transactions import connection_release_for_wait, retried_on_lost_connection

logger = logging.getLogger(__name__)
MAX_BACKOFF_S = 30  # API.md: never more than 30 s between two attempts
CALL_LEASE_S = 30  # a credit or rollback being attempted is not picked up again for this long
# A call is due a little before its time: the hosts' clocks differ slightly, and the task made for
# a new call should not wait for the sweeper because the worker's clock is behind the web host's.
CLOCK_MARGIN = timedelta(seconds=1)
# A debit's request holds it this long: far past the wallet's timeout. A debit still pending after
# that lost its request (a killed process): the sweeper gives it up and rolls it back.
DEBIT_LEASE_S = 30
# `partner_reconcile` fails while a call is still pending this long after it was made (by then it
# has been attempted some 25 times, 30 s apart at most): past its retries, for a person to look at.
OVERDUE_AFTER = timedelta(minutes=15)
SEND_WALLET_CALL_TASK = "casino.send_wallet_call"  # casino/tasks.py: asked for by name, never imported here
ANSWER_KEPT_CHARS = 2000
# A partner's balance beyond this (minor units: ten trillion of a currency with cents) is no
# balance but a broken answer; it also keeps every balance well inside PostgreSQL's bigint.
MAX_PARTNER_BALANCE = 10**15 - 1
# Fields of a call that an answer may say again; when it does, they must be the call's.
ECHOED_FIELDS = ("transaction_id", "reference", "player", "currency", "amount", "round")


def backoff_seconds(attempts: int) -> int:
    return min(2 ** min(attempts, 10), MAX_BACKOFF_S)


def transaction_id_for(*, round_id: uuid.UUID, purpose: str, attempt: int = 1) -> str:
    """A call's transaction id: fixed per round and purpose (`<round>-stake`, `<round>-raise`,
    `<round>-payout`), so that every retry of a request makes the same call. A raise refused for
    funds may be asked for again later: each later attempt gets its own (`<round>-raise-2`)."""
    return f"{round_id.hex}-{purpose}" + (f"-{attempt}" if attempt > 1 else "")


def _url(partner: Partner, name: str) -> str:
    return f"{partner.wallet_url.rstrip('/')}/{name}"


def _json(body: dict) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def wallet_post(*, partner: Partner, name: str, nonce: str, body: dict) -> OutboundAnswer:
    """One signed call of the partner's wallet; an answer within WALLET_TIMEOUT_S or none. Never
    made inside a transaction: nothing of ours waits on the partner holding a lock."""
    connection_release_for_wait()
    return _wallet_call(partner=partner, name=name, nonce=nonce, body=body)


def _wallet_call(*, partner, name: str, nonce: str, body: dict) -> OutboundAnswer:
    """The call itself, over the kept-alive connections of core/outbound.py (no database touched:
    the credit senders' threads run it)."""
    timeout = settings.WALLET_TIMEOUT_S
    return outbound_post(
        url=_url(partner, name),
        secret=partner.secret,
        nonce=nonce,
        body=_json(body),
        connect_timeout=min(CONNECT_TIMEOUT_S, timeout),
        read_timeout=timeout,
    )


def _answer_json(answer: OutboundAnswer) -> dict | None:
    """The answer's body as a JSON object; None for UTF-8 with a NUL, or not UTF-8, not strict JSON
    (NaN, a key twice, nested beyond reason) or not an object."""
    if b"\x00" in answer.body:
        return None
    try:
        parsed = json_loads_strict(answer.body.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _answer_checked(answer: OutboundAnswer, *, sent: dict) -> tuple[str, int | None]:
    """(why `answer` is not a usable `200 {"balance": <int>}` to the call whose body was `sent`, or
    "" when it is one; the balance it says, when it is one), the body parsed once."""
    if answer.status_code != 200 or not answer.ok:
        return answer.error or f"HTTP {answer.status_code}", None
    found = _answer_json(answer)
    if found is None:
        return "the answer is not a JSON object (UTF-8, no NUL, no key twice)", None
    balance = found.get("balance")
    if type(balance) is not int:
        return "the answer has no integer balance", None
    if not 0 <= balance <= MAX_PARTNER_BALANCE:
        return f"the answer's balance is not from 0 to {MAX_PARTNER_BALANCE}", None
    for name in ECHOED_FIELDS:
        if name in found and name in sent and (type(found[name]) is not type(sent[name]) or found[name] != sent[name]):
            return f"the answer's {name} is not the call's", None
    return "", balance


def wallet_answer_problem(answer: OutboundAnswer, *, sent: dict) -> str:
    """Why `answer` is not a usable `200 {"balance": <int>}` to the call whose body was `sent`;
    "" when it is one."""
    return _answer_checked(answer, sent=sent)[0]


def answered_balance(answer: OutboundAnswer, *, sent: dict) -> int | None:
    """The player's balance from a valid `200 {"balance": <int>}` to the call `sent`; None for any
    other answer (`wallet_answer_problem`)."""
    return _answer_checked(answer, sent=sent)[1]


def refused_for_funds(answer: OutboundAnswer) -> bool:
    return answer.status_code == 422 and (_answer_json(answer) or {}).get("code") == "insufficient_funds"


def _storable(text: str) -> str:
    """Text PostgreSQL can hold: a partner's answer with a NUL in it is kept with U+FFFD instead."""
    return text.replace("\x00", "\ufffd")


def wallet_balance_get(*, player: Player) -> int:
    """The player's balance at its partner (`GET wallet/`), or `wallet_unavailable`."""
    body = {"player": player.external_id, "currency": player.currency}
    answer = wallet_post(partner=player.partner, name="balance", nonce=secrets.token_hex(16), body=body)
    problem = wallet_answer_problem(answer, sent=body)
    if problem:
        logger.warning("balance call to partner %s failed: %s", player.partner_id, _storable(problem))
        raise WalletUnavailable(gettext("the partner's wallet did not tell the balance; try again"))
    return answered_balance(answer, sent=body)


# --- Recording calls -------------------------------------------------------------------------------


def _answer_kept(answer: OutboundAnswer, *, problem: str) -> tuple[str, str]:
    """(the answer's text, the attempt's error) as a call keeps them: a 200 that is no usable
    answer says why (`problem`)."""
    text = _storable(answer.body.decode("utf-8", "replace")[:ANSWER_KEPT_CHARS])
    return text, _storable(answer.error or problem)[:300]


def _answer_applied(call: WalletCall, answer: OutboundAnswer, *, status: str | None) -> WalletCallAttempt:
    """What an attempt and its answer change in the call (in memory), and the attempt's row (unsaved)."""
    problem, balance = _answer_checked(answer, sent=call.request_body)
    text, error = _answer_kept(answer, problem=problem)
    call.attempts += 1
    call.last_status_code = answer.status_code
    call.last_error = error
    call.last_answer = text
    call.latency_ms = answer.duration_ms
    if not problem:
        call.partner_balance = balance
    if status is not None:
        call.status = status
        call.answered_at = timezone.now()
    return WalletCallAttempt(
        call=call, status_code=answer.status_code, error=error, answer=text, duration_ms=answer.duration_ms
    )


def _call_answer(call: sql.ClaimedCall, answer: OutboundAnswer) -> sql.CallAnswer:
    """What recording `answer` to the claimed `call` writes (sql.credits_record): the same attempt
    and fields as `_answer_applied`; acknowledged when the answer is usable, else attempted again
    after its backoff (the call's attempts cannot change while it is leased to its sender)."""
    problem, balance = _answer_checked(answer, sent=call.request_body)
    text, error = _answer_kept(answer, problem=problem)
    return sql.CallAnswer(
        call_id=call.id,
        status_code=answer.status_code,
        error=error,
        answer=text,
        duration_ms=answer.duration_ms,
        balance=None if problem else balance,
        acknowledged=not problem,
        next_attempt_at=timezone.now() + timedelta(seconds=backoff_seconds(call.attempts + 1)),
    )


def _calls_record(answers: list[sql.CallAnswer]) -> list[sql.CallRecorded]:
    """One transaction: the answers recorded and the acknowledged credits' rounds settled, in one
    statement; then the webhooks of the rounds whose partner takes them."""
    with transaction.atomic():
        recorded = sql.credits_record(answers=answers)
        webhooks_create_for_rounds([r.settled_round for r in recorded if r.webhook_partner is not None])
    return recorded


RECORDED_FIELDS = [
    "attempts",
    "last_status_code",
    "last_error",
    "last_answer",
    "latency_ms",
    "partner_balance",
    "status",
    "answered_at",
]


def _answer_audit(call: WalletCall, answer: OutboundAnswer) -> AuditEvent:
    return AuditEvent(
        actor_type="system",
        actor_id="seamless_wallet",
        action=f"wallet_call.{call.status}",
        object_type="wallet_call",
        object_id=call.transaction_id,
        data={"kind": call.kind, "amount": call.amount, "status_code": answer.status_code},
    )


def wallet_call_record(call: WalletCall, answer: OutboundAnswer, *, status: str | None) -> None:
    """Inside a transaction holding the call's row: an attempt and what it answered; `status` the
    call's new status (None: still pending)."""
    _answer_applied(call, answer, status=status).save()
    if status is not None:
        _answer_audit(call, answer).save()
    call.save(update_fields=RECORDED_FIELDS)


def wallet_debit_create(
    *,
    player: Player,
    round_id: uuid.UUID,
    purpose: str,
    amount: int,
    attempt: int = 1,
    request_scope: str = "",
    request_key: str = "",
    request_hash: str = "",
) -> WalletCall | None:
    """A pending debit and its audit event, one statement (casino/sql/casino_wallet_debit_create.sql):
    the request making it holds it for DEBIT_LEASE_S. None, with nothing written, when a debit of
    the same request (`request_scope`, `request_key`) exists already."""
    transaction_id = transaction_id_for(round_id=round_id, purpose=purpose, attempt=attempt)
    body = {
        "transaction_id": transaction_id,
        "player": player.external_id,
        "currency": player.currency,
        "amount": amount,
        "round": str(round_id),
        "kind": purpose,
    }
    now = timezone.now()
    call = instance_new(  # as WalletCall(...) makes it; casino_wallet_debit_create writes it
        WalletCall,
        transaction_id=transaction_id,
        kind=WalletCallKind.DEBIT,
        purpose=purpose,
        partner=player.partner,
        player=player,
        round_id=round_id,
        amount=amount,
        currency=player.currency,
        request_body=body,
        request_scope=request_scope,
        request_key=request_key,
        request_hash=request_hash,
        next_attempt_at=now + timedelta(seconds=DEBIT_LEASE_S),
        created_at=now,
    )
    if not sql.wallet_debit_create(call=call):
        return None
    call._state.adding = False  # it is a row now
    return call


def wallet_debit_acknowledgement(answer: OutboundAnswer, *, balance: int) -> dict:
    """What a debit's `200` (a valid answer, saying `balance`: `answered_balance`) writes when the
    statement that places its round acknowledges it (casino/sql/casino_round_place.sql
    `p_debit_answer`): the same attempt and fields as `wallet_call_record`."""
    return {
        "status_code": answer.status_code,
        "error": _storable(answer.error)[:300],
        "answer": _storable(answer.body.decode("utf-8", "replace")[:ANSWER_KEPT_CHARS]),
        "duration_ms": answer.duration_ms,
        "balance": balance,
    }


def wallet_debit_refusal(status: str) -> ServiceError:
    """The request's refusal for a debit that ended `status` (refused for funds, or failed)."""
    if status == Status.REFUSED:
        return InsufficientFunds(gettext("the partner's wallet does not hold enough money for this"))
    return WalletUnavailable(gettext("the partner's wallet did not confirm the debit; it is being rolled back"))


def wallet_debit_lease(call: WalletCall) -> None:
    """The request retried after its first attempt died takes the debit over (row held by the caller)."""
    call.next_attempt_at = timezone.now() + timedelta(seconds=DEBIT_LEASE_S)
    call.save(update_fields=["next_attempt_at"])


def wallet_debit_send(*, call: WalletCall) -> OutboundAnswer:
    """The debit itself: called with no transaction open, so no row lock and no transaction wait on
    the partner's wallet (nor, with a connection pool, a database connection)."""
    return wallet_post(partner=call.partner, name="debit", nonce=call.transaction_id, body=call.request_body)


def wallet_rollback_create(*, debit: WalletCall) -> WalletCall:
    """Inside the transaction that gives the debit up: its rollback, sent after commit and until
    acknowledged. Once per debit (the rollback's transaction id is the debit's, suffixed)."""
    existing = WalletCall.objects.filter(reference=debit).first()
    if existing is not None:
        return existing
    transaction_id = f"{debit.transaction_id}-rb"
    body = {
        "transaction_id": transaction_id,
        "reference": debit.transaction_id,
        "player": debit.player.external_id,
        "currency": debit.currency,
        "amount": debit.amount,
        "round": str(debit.round_id),
    }
    rollback = WalletCall.objects.create(
        transaction_id=transaction_id,
        kind=WalletCallKind.ROLLBACK,
        purpose=WalletCallPurpose.ROLLBACK,
        reference=debit,
        partner_id=debit.partner_id,
        player_id=debit.player_id,
        round_id=debit.round_id,
        amount=debit.amount,
        currency=debit.currency,
        request_body=body,
        next_attempt_at=timezone.now(),
    )
    audit_record(
        actor_type="system",
        actor_id="seamless_wallet",
        action="wallet_call.created",
        obj_type="wallet_call",
        obj_id=transaction_id,
        kind="rollback",
        reference=debit.transaction_id,
    )
    after_commit(functools.partial(wallet_call_enqueue, rollback.pk), what=f"queueing rollback {transaction_id}")
    return rollback


def wallet_debit_give_up(*, call: WalletCall, answer: OutboundAnswer | None) -> None:
    """Row held: the debit had no usable answer (or its request died); roll it back."""
    if answer is not None:
        wallet_call_record(call, answer, status=Status.FAILED)
    else:
        call.status = Status.FAILED
        call.answered_at = timezone.now()
        call.last_error = call.last_error or "the request making this debit ended before it was answered"
        call.save(update_fields=["status", "answered_at", "last_error"])
        audit_record(
            actor_type="system",
            actor_id="seamless_wallet",
            action="wallet_call.failed",
            obj_type="wallet_call",
            obj_id=call.transaction_id,
            amount=call.amount,
        )
    wallet_rollback_create(debit=call)


# --- Sending credits and rollbacks -----------------------------------------------------------------


def wallet_call_enqueue(call_id: uuid.UUID | str) -> None:
    task_enqueue(
        SEND_WALLET_CALL_TASK,
        call_id,
        attempt_now=lambda: wallet_call_send(call_id=call_id),
        what=f"wallet call {call_id}",
    )


def wallet_call_send(*, call_id: uuid.UUID | str) -> bool:
    """One attempt of a credit or a rollback, if it is due. True once the partner has acknowledged
    it (now or before). A call another sender is attempting right now is leased (its next attempt
    set past the wallet's timeout), so it is not due: the task made for it and the sweeper never
    both send it."""
    with transaction.atomic():
        call = (
            WalletCall.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("partner", "player")
            .filter(pk=call_id)
            .exclude(kind=WalletCallKind.DEBIT)
            .first()
        )
        if call is None:
            return False
        if call.status != Status.PENDING:
            return call.status == Status.ACKNOWLEDGED
        if call.next_attempt_at > timezone.now() + CLOCK_MARGIN:
            return False  # leased by another sender, or backing off: the sweeper attempts it when due
        # Leased: the HTTP call happens outside any transaction and no other worker takes it meanwhile.
        call.next_attempt_at = timezone.now() + timedelta(seconds=CALL_LEASE_S)
        call.save(update_fields=["next_attempt_at"])

    answer = wallet_post(partner=call.partner, name=call.kind, nonce=call.transaction_id, body=call.request_body)

    claimed = sql.ClaimedCall(
        call.pk,
        call.kind,
        call.transaction_id,
        call.request_body,
        call.attempts,
        call.partner.wallet_url,
        call.partner.secret,
    )

    def record() -> bool:
        (recorded,) = _calls_record([_call_answer(claimed, answer)])
        return recorded.status == Status.ACKNOWLEDGED

    # The connection may have been cut while the wallet answered (a restart, a failover, a
    # terminated backend): the answer is recorded on a new one, rather than waiting out the lease.
    return retried_on_lost_connection(record, what=f"recording {call.transaction_id}")


# --- Credits, in batches ---------------------------------------------------------------------------
# Settlement records a batch of rounds' credits in one statement (casino/sql/casino_rounds_settle.sql)
# and asks for one sender after its commit. A sender takes every credit due (a batch, leased so no
# other sender takes it; one statement, sql.credits_claim), sends them CREDITS_IN_FLIGHT at a time over
# kept-alive connections with no transaction, lock or connection of ours held, and records every
# answer in one statement (casino/sql/casino_credits_record.sql: the ORM's statements and model
# instances per batch were most of a seamless round's CPU in the worker, docs/BENCHMARKS.md).

SEND_CREDITS_TASK = "casino.send_credits"  # casino/tasks.py
CREDITS_IN_FLIGHT = 16  # core/outbound.py keeps 16 connections per partner address
# A batch is sent within its lease even if every call times out: 64 / 16 = 4 waves of at most
# WALLET_TIMEOUT_S (5 s), well inside CALL_LEASE_S (30 s), so no other sender takes a credit back.
CREDIT_BATCH = 64
_senders: tuple[int, ThreadPoolExecutor] | None = None  # (the process it belongs to, the threads)


def _sender_threads() -> ThreadPoolExecutor:
    """This process's sender threads (made again in a forked child: threads do not survive a fork)."""
    global _senders
    if _senders is None or _senders[0] != os.getpid():
        _senders = (os.getpid(), ThreadPoolExecutor(CREDITS_IN_FLIGHT, thread_name_prefix="wallet-credit"))
    return _senders[1]


def wallet_credits_enqueue() -> None:
    """After the commit of a settlement batch that recorded credits: one message for a sender,
    whatever their number; without a broker (eager), they are sent now, in this process. A failed
    publish is logged, never raised: the sweeper sends them."""
    if current_app.conf.task_always_eager:
        wallet_credits_send()
        return
    try:
        current_app.send_task(SEND_CREDITS_TASK)
    except Exception:
        logger.warning("could not queue a credit sender; the sweeper will send the credits", exc_info=True)


def _credits_claim(*, limit: int) -> list[sql.ClaimedCall]:
    """The credits due (at most `limit`), leased in one statement: no other sender takes them while
    they are being sent; a sender killed meanwhile leaves them to the sweeper."""
    now = timezone.now()
    return sql.credits_claim(due_by=now + CLOCK_MARGIN, leased_until=now + timedelta(seconds=CALL_LEASE_S), limit=limit)


def _credit_post(call: sql.ClaimedCall) -> OutboundAnswer:
    return _wallet_call(partner=call, name=call.kind, nonce=call.transaction_id, body=call.request_body)


def _credits_record(calls: list[sql.ClaimedCall], answers: list[OutboundAnswer]) -> int:
    """Every answer recorded and the acknowledged credits' rounds settled, in one statement for the
    whole batch (`_calls_record`). Returns how many this recording acknowledged."""
    recorded = _calls_record([_call_answer(call, answer) for call, answer in zip(calls, answers, strict=True)])
    return sum(r.recorded and r.status == Status.ACKNOWLEDGED for r in recorded)


def wallet_credits_send(*, limit: int = CREDIT_BATCH) -> int:
    """Send every credit due, a batch at a time: each batch leased, sent CREDITS_IN_FLIGHT at once
    with nothing of ours held, and recorded. Returns how many the partners acknowledged."""
    acknowledged = 0
    while True:
        calls = _credits_claim(limit=limit)
        if not calls:
            return acknowledged
        connection_release_for_wait()
        answers = [_credit_post(calls[0])] if len(calls) == 1 else list(_sender_threads().map(_credit_post, calls))
        # The connection may have been cut while the wallets answered: recorded on a new one.
        acknowledged += retried_on_lost_connection(
            functools.partial(_credits_record, calls, answers), what=f"recording {len(calls)} credits"
        )
        if len(calls) < limit:
            return acknowledged


def wallet_calls_send_due(*, limit: int = 200) -> int:
    """The sweeper: give up debits whose request died (rolling them back), and attempt every credit
    and rollback whose next attempt is due. Returns how many calls it acknowledged or gave up."""
    now = timezone.now()
    done = 0
    stale = list(
        WalletCall.objects.filter(status=Status.PENDING, kind=WalletCallKind.DEBIT, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("id", flat=True)[:limit]
    )
    for call_id in stale:
        with transaction.atomic():
            call = (
                WalletCall.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("player")
                .filter(pk=call_id, status=Status.PENDING, next_attempt_at__lte=timezone.now())
                .first()
            )
            if call is not None:
                logger.warning("debit %s was left pending by its request; rolling it back", call.transaction_id)
                wallet_debit_give_up(call=call, answer=None)
                done += 1
    due = list(
        WalletCall.objects.filter(status=Status.PENDING, kind=WalletCallKind.ROLLBACK, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("id", flat=True)[:limit]
    )
    return done + sum(wallet_call_send(call_id=call_id) for call_id in due) + wallet_credits_send()
