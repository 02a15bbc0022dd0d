"""Every way the service runs restarts a process that exits, and starts workers the way that rides
out broker outages (issue #16 item 7; docs/RELIABILITY.md)."""

import re
from pathlib import Path

import yaml

from tests.faults.cluster import WORKER_FLAGS

ROOT = Path(__file__).resolve().parents[2]


def test_compose_restarts_web_worker_and_beat_and_checks_their_health():
    services = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())["services"]
    for name in ("web", "worker", "beat"):
        assert services[name]["restart"] == "unless-stopped"
        assert "healthcheck" in services[name]
    assert "/healthz/ready" in " ".join(services["web"]["healthcheck"]["test"])
    assert set(WORKER_FLAGS) <= set(services["worker"]["command"])
    assert "--without-heartbeat" not in services["worker"]["command"]  # its timer keeps the worker consuming


def test_the_documented_systemd_units_restart_for_ever_and_run_workers_the_same_way():
    reliability = (ROOT / "docs" / "RELIABILITY.md").read_text()
    assert "Restart=always" in reliability and "StartLimitIntervalSec=0" in reliability
    worker_line = next(
        line for line in reliability.splitlines() if line.startswith("ExecStart=") and " worker " in line
    )
    assert all(flag in worker_line for flag in WORKER_FLAGS) and "--without-heartbeat" not in worker_line


def test_bin_serve_restarts_the_worker_and_beat_and_runs_workers_the_same_way():
    serve = (ROOT / "config" / "serve.py").read_text()  # what bin/serve runs
    children = re.findall(r'Child\(\s*"([^"]+)"', serve)  # whatever line the formatter breaks it on
    assert "Celery worker" in children and "Celery beat" in children and "restart_at" in serve
    assert all(flag in serve for flag in WORKER_FLAGS) and "--without-heartbeat" not in serve
