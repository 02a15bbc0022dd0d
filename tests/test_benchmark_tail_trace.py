"""benchmarks/http_rounds.py --trace-tail: which Celery tasks ran while the slow rounds ran."""

from benchmarks.http_rounds import tail_attribution


def test_tail_attribution_counts_the_slow_rounds_by_the_tasks_running_meanwhile(tmp_path):
    (tmp_path / "requests.1").write_text(
        "100.000 0.002 /api/v1/rounds/\n"  # fast
        "100.010 0.008 /api/v1/rounds/\n"  # slow, while the settlement ran
        "100.050 0.006 /api/v1/rounds/\n"  # slow, no task running
        "100.060 0.009 /healthz/live\n"  # not a round
        "200.000 0.009 /api/v1/rounds/\n"  # after the measured run
    )
    (tmp_path / "requests.2").write_text("100.100 0.007 /api/v1/partner/players/p1/rounds/\n")  # slow: seal + settle
    (tmp_path / "tasks.7").write_text(
        "100.012 0.003 0.001 casino.settle_due\n100.095 0.010 0.002 casino.settle_due\n150.000 1.0 0.5 casino.x\n"
    )
    (tmp_path / "tasks.8").write_text("100.090 0.020 0.015 ledger.tasks.ledger_seal_task\n")

    tail = tail_attribution(tmp_path, (99.0, 101.0), slow_ms=5)

    assert tail["rounds"] == 4
    assert tail["slow"] == 3
    assert tail["slow_overlapping"] == {
        "casino.settle_due": 1,
        "(no task)": 1,
        "casino.settle_due + ledger.tasks.ledger_seal_task": 1,
    }
    assert tail["server_ms"][50] == 7.0
    assert tail["tasks"]["casino.settle_due"] == {
        "runs": 2,
        "wall_ms_median": 10.0,
        "wall_ms_total": 13.0,
        "cpu_ms_total": 3.0,
    }
    assert "casino.x" not in tail["tasks"]  # it started after the run
