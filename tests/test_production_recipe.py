"""README's "In production" block works as written: the deploy check, `migrate`, `collectstatic`,
gunicorn, a Celery worker and beat, with DEBUG off and the manifest storage of static files. The
API docs and the player's pages answer 200, and so does every static file they name (by its
hashed name, from `collectstatic`'s manifest).

Only the values of its `export` line are this run's (its servers, a key of its own, a var/ of
its own), gunicorn binds a free port of 127.0.0.1 and beat's schedule goes to that var/; its
first line (making .venv) is what bin/test already did.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

from tests.databases import database_url
from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parent.parent
EXPORTED = {"DEBUG", "DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS"}
# What the test run's own environment adds (pytest-django, bin/test) and a shell would not have.
NOT_A_SHELLS = {"DJANGO_ALLOW_ASYNC_UNSAFE", "SECURE_SSL_REDIRECT", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT"}


def readme_block(heading: str) -> list[str]:
    """The command lines of the first ```sh block under README's `heading`, comments dropped."""
    section = (ROOT / "README.md").read_text().split(f"\n{heading}\n", 1)[1]
    block = re.search(r"^```sh\n(.*?)^```", section, flags=re.M | re.S)[1]
    lines = [" ".join(line.split()) for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    return [re.sub(r"\s+#\s.*$", "", line) for line in lines if not line.startswith("#")]


def production_recipe() -> list[str]:
    return readme_block("## In production")


def _get(url: str) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Host": "casino.example", "X-Forwarded-Proto": "https"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, ""
    except OSError:  # not listening yet
        return 0, ""


def _static_names(page: str) -> list[str]:
    return sorted(set(re.findall(r'(?:src|href)="(/static/[^"?#]+)', page)))


@pytest.mark.django_db(transaction=True)
def test_the_production_recipe_serves_the_api_docs_and_hashed_static_files(tmp_path):
    venv, export, *steps = production_recipe()
    assert venv.startswith("python3 -m venv .venv && .venv/bin/pip install -r requirements.lock")
    assert export.startswith("export ")
    assert {item.split("=", 1)[0] for item in shlex.split(export)[1:]} == EXPORTED
    env = {key: value for key, value in os.environ.items() if key not in NOT_A_SHELLS}
    env.update(
        DEBUG=dict(item.split("=", 1) for item in shlex.split(export)[1:])["DEBUG"],
        DATABASE_URL=database_url(connection.settings_dict),
        REDIS_URL=os.environ["REDIS_URL"],
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="casino.example",
        CSRF_TRUSTED_ORIGINS="https://casino.example",
        VAR_DIR=str(tmp_path / "var"),
    )
    once = [step for step in steps if "manage.py" in step]
    long_lived = [step for step in steps if step not in once]
    assert [step.split()[0] for step in long_lived] == [".venv/bin/gunicorn", ".venv/bin/celery", ".venv/bin/celery"]
    for step in once:
        result = subprocess.run(["bash", "-c", step], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{step}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    assert (tmp_path / "var" / "static" / "staticfiles.json").exists()

    port = free_port()
    processes = []
    logs = contextlib.ExitStack()  # each long-lived step's standard error, closed at the end
    try:
        for step in long_lived:
            step = step.replace("--bind 0.0.0.0:8000", f"--bind 127.0.0.1:{port}")
            step = step.replace("var/celerybeat-schedule", str(tmp_path / "var" / "celerybeat-schedule"))
            processes.append(
                subprocess.Popen(
                    ["bash", "-c", f"exec {step}"],
                    cwd=ROOT,
                    env=env,
                    start_new_session=True,
                    stdout=subprocess.DEVNULL,
                    stderr=logs.enter_context((tmp_path / f"{step.split()[0].rsplit('/', 1)[-1]}.log").open("a")),
                )
            )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while _get(f"{base}/healthz/live")[0] != 200:
            assert all(p.poll() is None for p in processes), "a process of the recipe exited"
            assert time.monotonic() < deadline, "gunicorn did not answer within 60 s"
            time.sleep(0.3)
        for path in ("/api/docs/", "/", "/signin/"):
            status, page = _get(f"{base}{path}")
            assert status == 200, path
            names = _static_names(page)
            assert names, f"{path} names no static file"
            for name in names:
                assert re.search(r"\.[0-9a-f]{12}\.\w+$", name), f"{name}: not the manifest's hashed name"
                assert _get(f"{base}{name}")[0] == 200, name
        assert all(p.poll() is None for p in processes), "the worker or beat exited"
        # gunicorn read gunicorn.conf.py from the root it was started in: the service's worker class
        assert "Using worker: config.web_worker.BalancedThreadWorker" in (tmp_path / "gunicorn.log").read_text()
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        logs.close()
