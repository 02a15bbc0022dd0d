import pytest
from django.db import connection


@pytest.fixture
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    """Tests run with DEBUG off but without `collectstatic`: no manifest to look names up in."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
