from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import Partner, Player, User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "email", "is_staff", "is_active", "last_login")


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    list_display = ("name", "key_id", "webhook_url", "is_active", "created_at")
    search_fields = ("name", "key_id")
    # The secret is shown once, by `partner_create`; the admin never displays it.
    exclude = ("secret",)
    readonly_fields = ("key_id", "created_at")

    def has_add_permission(self, request):
        return False  # partners are created with `manage.py partner_create`, which prints the secret once


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("user", "partner", "external_id", "currency", "created_at")
    list_filter = ("partner", "currency")
    search_fields = ("user__username", "external_id", "user__email")
    readonly_fields = ("created_at",)
    raw_id_fields = ("user",)
