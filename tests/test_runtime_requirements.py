"""The runtime lock alone (what `bin/serve` and the Docker image install) runs the service with
Redis: Celery's Redis transport, the tasks and the settings import, and the broker answers.
The test suite's own lock has more packages, which once hid a missing one (`packaging`, needed by
kombu's Redis transport): the worker and beat could not start, and nothing settled."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CHECK = """
import django, os
django.setup()
import kombu.transport.redis
from config.celery import app
import casino.tasks, ledger.tasks, core.tasks
with app.connection_for_write() as connection:
    connection.ensure_connection(max_retries=1)
print("runtime ok")
"""


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (bin/test sets REDIS_URL)")
def test_the_runtime_lock_alone_runs_celery_on_redis(tmp_path):
    env_dir = tmp_path / "runtime-venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    # This run's pip installs into the new environment (`--python`): no pip of its own to set up,
    # and no bytecode compiled ahead (the check imports what it needs).
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "-r",
            str(ROOT / "requirements.lock"),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run([str(python), "-c", CHECK], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "runtime ok" in result.stdout
    assert sys.executable != str(python)
