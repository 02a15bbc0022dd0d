"""docker/compose.yaml describes the whole service (a Docker engine is not available in CI)."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_runs_web_worker_beat_postgres_and_redis_with_health_checks():
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
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
