"""docker/compose.yaml describes the whole service with production defaults: it refuses to start
without SECRET_KEY or POSTGRES_PASSWORD (no password is written in it), publishes the web port on
the loopback interface only unless told otherwise, and loads demo data and turns play money on
only when asked for. Checked with `docker compose config` (or Debian's docker-compose; .ci/run
installs it): no engine needed."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = ROOT / "docker" / "compose.yaml"
APP_SERVICES = ("migrate", "web", "worker", "beat")
ASKED_FOR = (
    "SECRET_KEY",
    "POSTGRES_PASSWORD",
    "DEMO_DATA",
    "PLAY_MONEY",
    "DEMO_PASSWORD",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "WEB_BIND",
    "WEB_PORT",
    "PGPASSWORD",
)
SECRETS = {"SECRET_KEY": "k" * 50, "POSTGRES_PASSWORD": "p@ss:w/rd-" + "x" * 20}


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
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_compose_refuses_to_start_without_a_secret_key(tmp_path):
    for env in ({"POSTGRES_PASSWORD": "p" * 20}, {"SECRET_KEY": "", "POSTGRES_PASSWORD": "p" * 20}):
        result = compose_config(tmp_path, **env)
        assert result.returncode != 0 and "SECRET_KEY" in result.stderr
    assert "SECRET_KEY:-" not in COMPOSE_FILE.read_text()  # no fallback key of any kind


def test_compose_takes_the_database_password_from_the_environment(tmp_path):
    """Issue #28: no password written in the file; without one compose refuses to start."""
    for env in ({"SECRET_KEY": "k" * 50}, {"SECRET_KEY": "k" * 50, "POSTGRES_PASSWORD": ""}):
        result = compose_config(tmp_path, **env)
        assert result.returncode != 0 and "POSTGRES_PASSWORD" in result.stderr
    text = COMPOSE_FILE.read_text()
    assert "POSTGRES_PASSWORD:-" not in text and "casino:casino@" not in text
    services = yaml.safe_load(compose_config(tmp_path, **SECRETS).stdout)["services"]
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD"] == SECRETS["POSTGRES_PASSWORD"]
    for name in APP_SERVICES:
        env = services[name]["environment"]
        assert env["PGPASSWORD"] == SECRETS["POSTGRES_PASSWORD"]  # libpq reads it: no escaping in a URL
        assert "@postgres:5432/" in env["DATABASE_URL"] and ":" not in env["DATABASE_URL"].split("//")[1].split("@")[0]


def _published(port) -> tuple[str, str]:
    """(host address, host port) of a port as `docker compose config` writes it (short or long form)."""
    if isinstance(port, dict):
        return port.get("host_ip", "0.0.0.0"), str(port["published"])
    parts = str(port).split("/")[0].split(":")
    return (parts[0], parts[1]) if len(parts) == 3 else ("0.0.0.0", parts[0])


def test_compose_publishes_the_web_port_on_the_loopback_only_unless_told(tmp_path):
    services = yaml.safe_load(compose_config(tmp_path, **SECRETS).stdout)["services"]
    assert [_published(port) for port in services["web"]["ports"]] == [("127.0.0.1", "8000")]
    assert not any("ports" in services[name] for name in ("postgres", "redis", "worker", "beat", "migrate"))
    told = yaml.safe_load(compose_config(tmp_path, **SECRETS, WEB_BIND="0.0.0.0", WEB_PORT="8080").stdout)
    assert [_published(port) for port in told["services"]["web"]["ports"]] == [("0.0.0.0", "8080")]


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
    result = compose_config(tmp_path, **SECRETS)
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    for name in APP_SERVICES:
        env = services[name]["environment"]
        assert env["SECRET_KEY"] == "k" * 50 and str(env["DEBUG"]).lower() == "false"
        assert str(env["PLAY_MONEY"]).lower() == "false" and str(env["DEMO_DATA"]).lower() == "false"
    assert run_migrate_service(tmp_path, services["migrate"]) == ["manage.py migrate --noinput"]

    asked = compose_config(tmp_path, **SECRETS, DEMO_DATA="true", PLAY_MONEY="true")
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
