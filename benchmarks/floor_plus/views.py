"""The floor's bet, and the same bet with each guarantee of a round that FLOOR_PLUS names, each
written the cheapest correct way this stack allows (ORM, no hand SQL): a lower bound of what the
guarantee costs, not this service's implementation of it."""

import hashlib
import hmac
import json
import secrets
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import urllib3
from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmarks.floor_plus.models import Account, AuditEvent, Bet, Entry, IdempotencyRecord, Posting, Wallet

G = settings.GUARANTEES
# The `seamless` step: the partner's wallet (tests/wallet_server.py, a process of its own), called
# over kept-alive connections (as many as gunicorn's threads), each call signed as API.md says.
_wallet = urllib3.PoolManager(maxsize=32, retries=False)
# Credits leave the request (as a worker sends them), so a slow wallet delays no answer; the CPU
# they cost is this process's all the same.
_credit_senders = ThreadPoolExecutor(16, thread_name_prefix="credit")


def _call_body(transaction_id: str, *, user_id: int, amount: int, kind: str) -> dict:
    """A debit's or credit's body (API.md "Seamless wallet"); its round is its own id here."""
    return {
        "transaction_id": transaction_id,
        "player": f"p{user_id}",
        "currency": "EUR",
        "amount": amount,
        "round": transaction_id,
        "kind": kind,
    }


def _wallet_post(name: str, body: dict) -> int:
    """One signed call to the partner's wallet; its HTTP status (0: no answer)."""
    raw = json.dumps(body).encode()
    url = f"{settings.FLOOR_PLUS_WALLET}/{name}"
    timestamp, nonce = str(int(time.time())), body["transaction_id"]
    message = f"{timestamp}.{nonce}.POST.{urlsplit(url).path}.".encode() + raw
    signature = hmac.new(settings.FLOOR_PLUS_WALLET_SECRET.encode(), message, hashlib.sha256).hexdigest()
    headers = {"Content-Type": "application/json", "X-Timestamp": timestamp, "X-Nonce": nonce, "X-Signature": signature}
    try:
        answer = _wallet.request("POST", url, body=raw, headers=headers, timeout=urllib3.Timeout(connect=3, read=5))
    except urllib3.exceptions.HTTPError:
        return 0
    if answer.status == 200 and not isinstance(json.loads(answer.data).get("balance"), int):
        return 0
    return answer.status


def _post(key: str, moves: dict[Account, int]) -> None:
    """One balanced entry: its row, its postings in one statement, each account's balance."""
    entry = Entry.objects.create(key=key)
    Posting.objects.bulk_create([Posting(entry=entry, account=a, amount=v) for a, v in moves.items()])
    for account, amount in moves.items():
        Account.objects.filter(pk=account.pk).update(balance=F("balance") + amount)


def _settle_ledger(user, bet: Bet, stake: int, payout: int) -> None:
    wallet, in_play, house = Account.objects.select_for_update().filter(user=user).order_by("id")
    if payout:
        _post(f"bet:{bet.pk}:settle", {in_play: -stake, house: stake - payout, wallet: payout})
    else:
        _post(f"bet:{bet.pk}:settle", {in_play: -stake, house: stake})
    Bet.objects.filter(pk=bet.pk, settled=False).update(settled=True)


class BetView(APIView):
    def post(self, request):
        stake = request.data.get("main_bet", request.data.get("stake"))
        if type(stake) is not int or stake <= 0:
            return Response({"code": "invalid_amount"}, status=400)
        key = request.headers.get("Idempotency-Key", "")
        if "idempotency" in G and not key:
            return Response({"code": "idempotency_key_required"}, status=400)
        payout = 2 * stake if secrets.randbelow(2) else 0
        if "sql" in G:
            return self._post_sql(request, stake=stake, payout=payout, key=key)
        try:
            with transaction.atomic():
                if "ledger" in G:
                    wallet, in_play, _house = (
                        Account.objects.select_for_update().filter(user=request.user).order_by("id")
                    )
                    if wallet.balance < stake:
                        return Response({"code": "insufficient_funds"}, status=422)
                    bet = Bet.objects.create(wallet_id=request.user.wallet.pk, stake=stake, payout=payout)
                    _post(f"bet:{bet.pk}:stake", {wallet: -stake, in_play: stake})
                    if "settle_apart" not in G:
                        _settle_ledger(request.user, bet, stake, payout)
                    balance = wallet.balance - stake
                else:
                    wallet = Wallet.objects.select_for_update().get(user=request.user)
                    if wallet.balance < stake:
                        return Response({"code": "insufficient_funds"}, status=422)
                    wallet.balance += payout - stake
                    wallet.save(update_fields=["balance"])
                    bet = Bet.objects.create(wallet=wallet, stake=stake, payout=payout, settled=True)
                    balance = wallet.balance
                body = {"id": bet.pk, "stake": stake, "payout": payout, "balance": balance}
                if "audit" in G:
                    AuditEvent.objects.create(
                        actor=f"user:{request.user.pk}",
                        action="bet.place",
                        target=str(bet.pk),
                        data={"stake": stake, "payout": payout},
                    )
                if "idempotency" in G:  # a twin waits on the unique index, then replays below
                    IdempotencyRecord.objects.create(
                        user=request.user, key=key, response=body, request_hash=hashlib.sha256(request.body).hexdigest()
                    )
        except IntegrityError:
            record = IdempotencyRecord.objects.get(user=request.user, key=key)
            if record.request_hash != hashlib.sha256(request.body).hexdigest():
                return Response({"code": "idempotency_key_reused"}, status=422)
            return Response(record.response, status=201)
        if "settle_apart" in G:  # a second transaction, as a worker's would be (its message not counted)
            with transaction.atomic():
                _settle_ledger(request.user, bet, stake, payout)
        return Response(body, status=201)

    def _post_sql(self, request, *, stake: int, payout: int, key: str):
        """Every guarantee, each transaction one function call (migration 0002)."""
        digest = hashlib.sha256(request.body).hexdigest()
        seamless = "seamless" in G
        if seamless:  # the pending debit, committed before the call; then the call, nothing held
            debit = self._seamless_debit(request, stake=stake)
            if debit is None:
                return Response({"code": "wallet_unavailable"}, status=503)
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                if seamless:  # the debit acknowledged with the bet
                    cursor.execute(
                        "SELECT floor_plus_seamless_bet(%s, %s, %s, %s, %s, %s)",
                        [debit, request.user.pk, stake, payout, key, digest],
                    )
                else:
                    cursor.execute(
                        "SELECT floor_plus_bet(%s, %s, %s, %s, %s)", [request.user.pk, stake, payout, key, digest]
                    )
                bet_id = cursor.fetchone()[0]
        except IntegrityError:
            record = IdempotencyRecord.objects.get(user=request.user, key=key)
            if record.request_hash != digest:
                return Response({"code": "idempotency_key_reused"}, status=422)
            return Response(record.response, status=201)
        except DatabaseError:
            return Response({"code": "insufficient_funds"}, status=422)
        if seamless:  # settled with its credit recorded pending; the credit is sent apart
            self._seamless_settle(request, bet_id=bet_id, payout=payout)
        else:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT floor_plus_settle(%s)", [bet_id])
        return Response({"id": bet_id, "stake": stake, "payout": payout}, status=201)

    def _seamless_debit(self, request, *, stake: int) -> int | None:
        transaction_id = "d" + uuid.uuid4().hex
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO floor_plus_walletcall (transaction_id, kind, user_id, amount, status, created_at)"
                " VALUES (%s, 'debit', %s, %s, 'pending', now()) RETURNING id",
                [transaction_id, request.user.pk, stake],
            )
            debit = cursor.fetchone()[0]
        body = _call_body(transaction_id, user_id=request.user.pk, amount=stake, kind="stake")
        if _wallet_post("debit", body) != 200:
            with connection.cursor() as cursor:  # (a rollback would follow: not measured, none happen here)
                cursor.execute("UPDATE floor_plus_walletcall SET status = 'failed' WHERE id = %s", [debit])
            return None
        return debit

    def _seamless_settle(self, request, *, bet_id: int, payout: int) -> None:
        transaction_id = "c" + uuid.uuid4().hex
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT floor_plus_seamless_settle(%s, %s, %s)", [bet_id, request.user.pk, transaction_id])
            credit = cursor.fetchone()[0]
        body = _call_body(transaction_id, user_id=request.user.pk, amount=payout, kind="payout")
        _credit_senders.submit(_credit_send, credit, body)


def _credit_send(credit: int, body: dict) -> None:
    if _wallet_post("credit", body) == 200:
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE floor_plus_walletcall SET status = 'acknowledged', answered_at = now() WHERE id = %s",
                [credit],
            )
