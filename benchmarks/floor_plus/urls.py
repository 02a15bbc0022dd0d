from django.urls import path

from benchmarks.floor_plus.views import BetView

urlpatterns = [path("api/v1/rounds/", BetView.as_view()), path("bet/", BetView.as_view())]
