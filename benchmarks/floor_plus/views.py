"""The floor's bet, and the same bet with each guarantee of a round that FLOOR_PLUS names, each
written the cheapest correct way this stack allows (ORM, no hand SQL): a lower bound of what the
guarantee costs, not this service's implementation of it."""

import hashlib
import secrets

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmarks.floor_plus.models import Account, AuditEvent, Bet, Entry, IdempotencyRecord, Posting, Wallet

G = settings.GUARANTEES


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
        try:
            with transaction.atomic(), connection.cursor() as cursor:
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
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT floor_plus_settle(%s)", [bet_id])
        return Response({"id": bet_id, "stake": stake, "payout": payout}, status=201)
