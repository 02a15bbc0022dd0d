"""Test-only URLs: the service's own plus a page that plants an inline script, an inline event
handler and an inline style, to show that the Content-Security-Policy blocks them."""

from django.http import HttpResponse
from django.urls import path

from config.urls import urlpatterns as service_urlpatterns

PLANTED = """<!doctype html><html><head><title>probe</title>
<style>body { background: rgb(255, 0, 0); }</style></head>
<body><p id="target">untouched</p>
<button id="handler" onclick="document.getElementById('target').textContent = 'handler ran'">click</button>
<script>document.getElementById("target").textContent = "inline script ran"; window.plantedRan = true;</script>
</body></html>"""


def planted(request):
    return HttpResponse(PLANTED)


urlpatterns = [path("csp-probe/", planted), *service_urlpatterns]
