import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
# Every module the requests will need loaded (the URLconf imports the views), then all that
# start-up made moved out of the collector's sight: it lives as long as the process, and without
# this every full collection walks it again, pausing every request thread (tens of milliseconds
# in a web process here; docs/BENCHMARKS.md).
get_resolver().url_patterns  # noqa: B018
gc.freeze()
