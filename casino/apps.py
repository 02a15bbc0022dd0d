from django.apps import AppConfig


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino War"

    def ready(self):
        from casino import checks  # noqa: F401  (registers the deployment checks)
