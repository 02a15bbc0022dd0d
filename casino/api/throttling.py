from rest_framework.throttling import SimpleRateThrottle


class PartnerRateThrottle(SimpleRateThrottle):
    """Requests per partner (all its players together)."""

    scope = "partner"

    def get_cache_key(self, request, view):
        partner = getattr(request.user, "partner", None)
        if partner is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": partner.pk}
