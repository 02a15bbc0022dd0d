from django.apps import AppConfig


class ProtectionConfig(AppConfig):
    name = "protection"
    verbose_name = "Player protection"
