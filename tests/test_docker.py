"""docker/compose.yaml describes the whole service with production defaults: it refuses to start
without SECRET_KEY, and loads demo data and turns play money on only when asked for. Checked with
`docker compose config` (or Debian's docker-compose; .ci/run installs it): no engine needed."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = ROOT / "docker" / "compose.yaml"
APP_SERVICES = ("migrate", "web", "worker", "beat")
ASKED_FOR = ("SECRET_KEY", "DEMO_DATA", "PLAY_MONEY", "DEMO_PASSWORD", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS")


def compose_command() -> list[str]:
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if os.environ.get("CI"):
        pytest.fail("neither `docker compose` nor docker-compose is installed: .ci/run installs docker-compose")
    pytest.skip("needs `docker compose` or docker-compose (apt-get install docker-compose)")


def compose_config(tmp_path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ASKED_FOR} | env
    return subprocess.run(
        [*compose_command(), "-f", str(COMPOSE_FILE), "-p", "casino-war", "config"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_compose_refuses_to_start_without_a_secret_key(tmp_path):
    for env in ({}, {"SECRET_KEY": ""}):
        result = compose_config(tmp_path, **env)
        assert result.returncode != 0 and "SECRET_KEY" in result.stderr
    assert "SECRET_KEY:-" not in COMPOSE_FILE.read_text()  # no fallback key of any kind


def run_migrate_service(tmp_path, service: dict) -> list[str]:
    """Run the migrate service's shell command with a `python` that only records what it was asked."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "python.log"
    log.write_text("")
    (bin_dir / "python").write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    (bin_dir / "python").chmod(0o755)
    command = [part.replace("$$", "$") for part in service["command"]]  # compose's escape of `$`
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", **{k: str(v) for k, v in service["environment"].items()}}
    subprocess.run(command, env=env, check=True, timeout=30)
    return log.read_text().splitlines()


def test_compose_has_no_demo_data_and_no_play_money_unless_asked_for(tmp_path):
    result = compose_config(tmp_path, SECRET_KEY="k" * 50)
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    for name in APP_SERVICES:
        env = services[name]["environment"]
        assert env["SECRET_KEY"] == "k" * 50 and str(env["DEBUG"]).lower() == "false"
        assert str(env["PLAY_MONEY"]).lower() == "false" and str(env["DEMO_DATA"]).lower() == "false"
    assert run_migrate_service(tmp_path, services["migrate"]) == ["manage.py migrate --noinput"]

    asked = compose_config(tmp_path, SECRET_KEY="k" * 50, DEMO_DATA="true", PLAY_MONEY="true")
    services = yaml.safe_load(asked.stdout)["services"]
    assert all(str(services[name]["environment"]["PLAY_MONEY"]).lower() == "true" for name in APP_SERVICES)
    assert run_migrate_service(tmp_path, services["migrate"]) == ["manage.py migrate --noinput", "manage.py demo_data"]


def test_compose_runs_web_worker_beat_postgres_and_redis_with_health_checks():
    compose = yaml.safe_load(COMPOSE_FILE.read_text())
    services = compose["services"]
    assert {"web", "worker", "beat", "postgres", "redis", "migrate"} <= set(services)
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"} <= set(env)
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for name in ("postgres", "redis", "worker", "beat"):
        assert "healthcheck" in services[name]
    assert "HEALTHCHECK" in (ROOT / "docker" / "Dockerfile").read_text()  # web's health check is in the image
    assert services["worker"]["command"][:3] == ["celery", "-A", "config"]
