"""`ledger_verify`: every invariant of the ledger, checked against the database itself."""

from __future__ import annotations

from contextlib import contextmanager

from django.db import connection, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from ledger import sql
from ledger.models import GUARDED_KINDS, Account, EntrySeal, JournalEntry, Posting, VerificationRun
from ledger.selectors import SIGNED
from ledger.services import GENESIS_HASH, entry_content_hash, ledger_seal

MAX_LISTED = 20  # problems listed per check; the count is always complete


def ledger_verify(*, triggered_by: str = "manual", seal_first: bool = True) -> VerificationRun:
    """Check every invariant and record the run. Nothing is changed but the chain's new seals."""
    started = timezone.now()
    if seal_first:
        while ledger_seal(everywhere=True):  # every entry, however late it committed
            pass
    with _one_snapshot():
        # Every check reads the same committed state: money keeps moving while the checks run,
        # and sums read at one moment must be compared with balances read at the same moment.
        checks = {
            "entries_balance": _unbalanced_entries(),
            "entries_have_postings": _entries_without_postings(),
            "cached_balances": _cached_balance_mismatches(),
            "wallets_not_negative": _negative_guarded_accounts(),
            "hash_chain": _chain_breaks(),
            "zero_sum_per_currency": _currency_totals(),
        }
        ok = all(not c["problems"] for c in checks.values())
        summary = {
            "ok": ok,
            "entries": JournalEntry.objects.count(),
            "postings": Posting.objects.count(),
            "accounts": Account.objects.count(),
            "unsealed_entries": JournalEntry.objects.filter(seal__isnull=True).count(),
            "checks": {name: {"ok": not c["problems"], **c} for name, c in checks.items()},
        }
    return VerificationRun.objects.create(
        started_at=started, finished_at=timezone.now(), ok=ok, triggered_by=triggered_by, summary=summary
    )


@contextmanager
def _one_snapshot():
    """A read-only transaction on one snapshot (REPEATABLE READ)."""
    if connection.in_atomic_block:  # inside a caller's transaction (tests): use its view
        yield
        return
    with transaction.atomic():
        sql.snapshot_read_only()
        yield


def _result(problems: list, examples: list | None = None, **extra) -> dict:
    return {"problems": len(problems), "examples": (examples or problems)[:MAX_LISTED], **extra}


def _unbalanced_entries() -> dict:
    rows = (
        Posting.objects.values("entry_id", "currency").annotate(total=Sum(SIGNED)).exclude(total=0).order_by("entry_id")
    )
    return _result([{"entry": r["entry_id"], "currency": r["currency"], "total": r["total"]} for r in rows])


def _entries_without_postings() -> dict:
    rows = JournalEntry.objects.annotate(n=Count("postings")).filter(n__lt=2).values_list("id", flat=True)
    return _result([{"entry": entry_id} for entry_id in rows])


def _cached_balance_mismatches() -> dict:
    sums = dict(Posting.objects.values("account_id").annotate(total=Sum(SIGNED)).values_list("account_id", "total"))
    problems = [
        {"account": account_id, "cached": balance, "postings": sums.get(account_id, 0)}
        for account_id, balance in Account.objects.values_list("id", "balance").iterator()
        if balance != sums.get(account_id, 0)
    ]
    return _result(problems)


def _negative_guarded_accounts() -> dict:
    rows = Account.objects.filter(kind__in=GUARDED_KINDS, balance__lt=0).values("id", "kind", "balance")
    return _result(list(rows))


def _currency_totals() -> dict:
    totals = {
        r["currency"]: r["total"] for r in Posting.objects.values("currency").annotate(total=Sum(SIGNED)).order_by()
    }
    problems = [{"currency": c, "total": t} for c, t in totals.items() if t != 0]
    return _result(problems, totals=totals)


def _chain_breaks() -> dict:
    problems = []
    previous = GENESIS_HASH
    checked = 0
    seals = EntrySeal.objects.select_related("entry").order_by("sequence")
    postings_by_entry: dict[int, list[Posting]] = {}
    for chunk in _chunks(seals.iterator(chunk_size=2000), 2000):
        entry_ids = [seal.entry_id for seal in chunk]
        postings_by_entry.clear()
        for posting in Posting.objects.filter(entry_id__in=entry_ids):
            postings_by_entry.setdefault(posting.entry_id, []).append(posting)
        for seal in chunk:
            checked += 1
            if seal.previous_hash != previous:
                problems.append({"sequence": seal.sequence, "entry": seal.entry_id, "problem": "link does not follow"})
            expected = entry_content_hash(seal.entry, postings_by_entry.get(seal.entry_id, []), seal.previous_hash)
            if expected != seal.hash:
                problems.append({"sequence": seal.sequence, "entry": seal.entry_id, "problem": "content changed"})
            previous = seal.hash
    return _result(problems, sealed=checked, head=previous if checked else None, database=connection.vendor)


def _chunks(iterator, size):
    chunk = []
    for item in iterator:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
