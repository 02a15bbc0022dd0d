"""Production defaults of config/settings.py: what is off unless the environment asks for it."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNSET = ("PLAY_MONEY", "OUTBOUND_ALLOW_PRIVATE", "DEMO_PASSWORD", "DEMO_DATA")


def production_setting(name: str, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in UNSET}
    environment.update(DEBUG="false", SECRET_KEY="x" * 50, DJANGO_SETTINGS_MODULE="config.settings", **env)
    code = f"from django.conf import settings; print(settings.{name})"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_play_money_demo_data_and_private_outbound_addresses_are_off_unless_asked_for():
    assert production_setting("PLAY_MONEY") == "False"
    assert production_setting("PLAY_MONEY", PLAY_MONEY="true") == "True"
    assert production_setting("OUTBOUND_ALLOW_PRIVATE") == "False"
    assert production_setting("OUTBOUND_ALLOW_PRIVATE", OUTBOUND_ALLOW_PRIVATE="true") == "True"
    assert production_setting("DEMO_DATA") == "False"


def test_a_database_connection_pool_only_when_asked_for():
    assert production_setting("DATABASES['default'].get('OPTIONS', {}).get('pool')") == "None"
    pooled = production_setting(
        "DATABASES['default']['OPTIONS']['pool']['max_size']", DATABASE_POOL="true", DATABASE_POOL_SIZE="6"
    )
    assert pooled == "6"
    assert production_setting("DATABASES['default']['CONN_MAX_AGE']", DATABASE_POOL="true") == "0"
    assert production_setting("DATABASES['default']['CONN_MAX_AGE']") == "600"


def test_the_options_of_database_url_are_kept_beside_the_services_own():
    url = "postgres://postgres@127.0.0.1:5432/casino?application_name=cw-web&sslmode=prefer"
    options = production_setting("DATABASES['default']['OPTIONS']", DATABASE_URL=url)
    assert "'application_name': 'cw-web'" in options and "'sslmode': 'prefer'" in options
    assert "'server_side_binding': True" in options and "'prepare_threshold': 5" in options
