"""What every app's admin shares: read-only model admins, maker-checker actions, small tables and
short ids."""

from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join

from core.errors import ServiceError


class ReadOnlyAdmin(admin.ModelAdmin):
    """Visible and searchable in the back office, never added, changed or deleted there."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class MakerCheckerAdmin(admin.ModelAdmin):
    """Requests one staff member proposes and another decides (adjustments, identity changes):
    the list's actions decide the selected proposals that are still open, one by one, each
    refusal (the maker deciding their own, say) reported beside the others' outcomes."""

    proposed_status: str  # the model's status of an open proposal

    def _decide(self, request, queryset, decide, verb):
        for proposal in queryset.filter(status=self.proposed_status):
            try:
                decide(proposal, request.user)
            except ServiceError as exc:
                self.message_user(request, f"#{proposal.pk}: {exc.detail}", messages.ERROR)
            else:
                self.message_user(request, f"#{proposal.pk} {verb}.", messages.SUCCESS)


def html_table(headers, rows, *, empty: str = "none"):
    """A small table inside a detail page (a round's bets, a player's wallet lines)."""
    body = (
        format_html_join("", "<tr>" + "<td>{}</td>" * len(headers) + "</tr>", rows)
        if rows
        else format_html('<tr><td colspan="{}">{}</td></tr>', len(headers), empty)
    )
    return format_html(
        '<table class="detail-table"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>',
        format_html_join("", "<th>{}</th>", ((h,) for h in headers)),
        body,
    )


def short_id(value) -> str:
    """A long id (a UUID, a hash) as its first 8 characters on one line, the whole id on hover
    (detail pages show it whole)."""
    text = str(value)
    return format_html('<span class="short-id" title="{}">{}</span>', text, text[:8])
