"""core/negotiation.py: the remembered choice is DRF's own, request after request."""

import pytest
from django.http import Http404
from django.test import RequestFactory
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request

from core import negotiation
from core.negotiation import RememberedContentNegotiation


@pytest.fixture(autouse=True)
def nothing_remembered(monkeypatch):
    monkeypatch.setattr(RememberedContentNegotiation, "_chosen", {})


def _request(accept=None, query=""):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    return Request(RequestFactory().get(f"/api/v1/tables/{query}", **headers))


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "*/*",
        "application/json",
        "application/json; indent=4",
        "text/html,application/json;q=0.9",
        "application/*",
    ],
)
@pytest.mark.parametrize("renderer_classes", [(JSONRenderer,), (JSONRenderer, BrowsableAPIRenderer)])
def test_the_choice_is_drfs_the_first_time_and_every_time_after(accept, renderer_classes):
    expected_renderer, expected_type = DefaultContentNegotiation().select_renderer(
        _request(accept), [kind() for kind in renderer_classes]
    )
    for _ in range(3):
        renderers = [kind() for kind in renderer_classes]
        renderer, media_type = RememberedContentNegotiation().select_renderer(_request(accept), renderers)
        assert type(renderer) is type(expected_renderer) and media_type == expected_type
        assert any(renderer is mine for mine in renderers)  # this request's own renderer


def test_an_unacceptable_request_is_refused_every_time():
    for _ in range(2):
        with pytest.raises(NotAcceptable):
            RememberedContentNegotiation().select_renderer(_request("text/csv"), [JSONRenderer()])
    assert RememberedContentNegotiation._chosen == {}


def test_a_format_in_the_query_string_is_decided_by_drf_and_not_remembered():
    with pytest.raises(Http404):  # DRF's answer to a format no renderer has
        RememberedContentNegotiation().select_renderer(_request("*/*", "?format=api"), [JSONRenderer()])
    renderer, _ = RememberedContentNegotiation().select_renderer(
        _request("*/*", "?format=api"), [JSONRenderer(), BrowsableAPIRenderer()]
    )
    assert isinstance(renderer, BrowsableAPIRenderer) and RememberedContentNegotiation._chosen == {}


def test_no_more_than_kept_choices_are_remembered(monkeypatch):
    monkeypatch.setattr(negotiation, "KEPT", 3)
    for n in range(10):
        RememberedContentNegotiation().select_renderer(_request(f"application/json; v={n}"), [JSONRenderer()])
    assert len(RememberedContentNegotiation._chosen) == 3
