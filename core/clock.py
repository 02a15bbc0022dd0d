"""The service's clock. One place to read the time, so that tests can move it (cooling-off periods,
time-outs) without sleeping."""

from django.utils import timezone


def now():
    return timezone.now()
