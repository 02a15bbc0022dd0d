"""The whole suite's wall time, as README runs it (`bin/test`), several passes in one invocation.

    python benchmarks/suite_time.py [--passes 3] [--workers 3[,2]]

Each pass is one `bin/test` (every step: lint, layers, catalogues, deploy check, pytest), with
bin/test's own number of workers unless --workers names some (TEST_WORKERS). With several worker
counts the passes alternate between them (3, 2, 3, 2, ...), so that a noisy spell
of the machine falls on both. It prints each pass's wall time, whether it passed, the CPU the
pass used (all processes it started, PostgreSQL's and Redis's work not included) and, per worker
count, the median. Every pass must pass: a failed pass is reported and makes the exit code 1.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def suite_pass(workers: str, log: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and exit code of one `bin/test` run with `workers` workers
    ("default": as many as bin/test chooses)."""
    env = {key: value for key, value in os.environ.items() if key != "TEST_WORKERS"}
    if workers != "default":
        env["TEST_WORKERS"] = workers
    cpu, started = _children_cpu_s(), time.monotonic()
    with log.open("w") as out:
        code = subprocess.run(
            ["bin/test"], cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
        ).returncode
    return time.monotonic() - started, _children_cpu_s() - cpu, code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passes", type=int, default=3, help="passes per worker count")
    parser.add_argument("--workers", default="default", help="worker counts, comma-separated (default: bin/test's)")
    parser.add_argument("--logs", type=Path, default=ROOT / "var" / "suite_time", help="each pass's output")
    options = parser.parse_args()
    counts = options.workers.split(",")
    options.logs.mkdir(parents=True, exist_ok=True)
    walls: dict[str, list[float]] = {count: [] for count in counts}
    failed = 0
    print(
        f"bin/test, {options.passes} passes per worker count, alternating {', '.join(counts)}; {os.cpu_count()} cores"
    )
    for number in range(1, options.passes + 1):
        for count in counts:
            log = options.logs / f"pass{number}-workers{count}.log"
            wall, cpu, code = suite_pass(count, log)
            walls[count].append(wall)
            failed += code != 0
            verdict = "passed" if code == 0 else f"FAILED (exit {code}, see {log})"
            print(f"pass {number}, {count} workers: {wall:.0f} s wall, {cpu:.0f} s CPU, {verdict}", flush=True)
    for count, seen in walls.items():
        print(f"{count} workers: median {statistics.median(seen):.0f} s ({', '.join(f'{s:.0f}' for s in seen)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
