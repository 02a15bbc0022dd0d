"""Staff sign-ins, failed sign-ins and permission changes go to the audit log; a password change
and an exclusion end the player's API tokens; a saved user, player or partner is forgotten by
whatever authentication remembers of it.

Django (and player protection, a layer below) announce these only through signals, so the
receivers are thin: each records one event through `core.audit.audit_record`, or calls one
service, and does nothing else.
"""

from __future__ import annotations

import logging

from django.contrib.auth.models import Group
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save
from django.dispatch import receiver

from accounts.auth_cache import (
    auth_forget_everything,
    auth_forget_with_commit,
    partner_name,
    partner_player_name,
    token_name,
)
from accounts.game_sessions import game_sessions_end_for_player
from accounts.models import ApiToken, GameSessionEnd, Partner, Player, User
from accounts.tokens import tokens_revoke
from core.actors import Actor
from core.audit import audit_record
from core.cache import cache_recovered
from core.client_address import client_address
from protection.signals import exclusion_started

logger = logging.getLogger(__name__)


@receiver(user_logged_in)
def record_sign_in(sender, request, user, **kwargs):
    if user.is_staff:
        audit_record(
            actor_type="operator",
            actor_id=user.pk,
            action="staff.signed_in",
            obj_type="user",
            obj_id=user.pk,
            ip=client_address(request),
        )


@receiver(user_login_failed)
def record_failed_sign_in(sender, credentials, request=None, **kwargs):
    username = str(credentials.get("username", ""))[:150]
    audit_record(
        actor_type="anonymous",
        actor_id=username or "-",
        action="sign_in.failed",
        obj_type="user",
        obj_id=username or "-",
        ip=client_address(request),
    )


def _record_permission_change(action: str, obj_type: str, instance, kwargs) -> None:
    if kwargs["action"] not in ("post_add", "post_remove", "post_clear"):
        return
    audit_record(
        actor_type="system",
        actor_id="permissions",
        action=f"{action}.{kwargs['action'][5:]}",
        obj_type=obj_type,
        obj_id=instance.pk,
        changed=sorted(kwargs.get("pk_set") or []),
    )


@receiver(m2m_changed, sender=User.groups.through)
def record_group_change(sender, instance, **kwargs):
    _record_permission_change("user.groups", "user", instance, kwargs)


@receiver(m2m_changed, sender=User.user_permissions.through)
def record_user_permission_change(sender, instance, **kwargs):
    _record_permission_change("user.permissions", "user", instance, kwargs)


@receiver(m2m_changed, sender=Group.permissions.through)
def record_group_permission_change(sender, instance, **kwargs):
    _record_permission_change("group.permissions", "group", instance, kwargs)


@receiver(pre_save, sender=User)
def notice_password_change(sender, instance, update_fields=None, **kwargs):
    """Whatever changes a password (the admin, `changepassword`, a service), compared with the
    stored hash; only a save that may write the password of an existing user reads it."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = User.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    instance._password_was_changed = stored is not None and stored != instance.password


@receiver(post_save, sender=User)
def end_tokens_after_password_change(sender, instance, **kwargs):
    if getattr(instance, "_password_was_changed", False):
        instance._password_was_changed = False
        tokens_revoke(user=instance, actor=Actor.system("password_change"), reason="password_changed")


@receiver(exclusion_started)
def end_tokens_of_excluded_player(sender, player, actor, **kwargs):
    tokens_revoke(user=player.user, actor=actor, reason="excluded")
    game_sessions_end_for_player(player=player, reason=GameSessionEnd.EXCLUDED, actor=actor)


# --- What authentication remembers (accounts/auth_cache.py) goes out of date with what it read ---


def _names_of_user(user_id: int) -> list[str]:
    names = [token_name(digest) for digest in ApiToken.objects.filter(user_id=user_id).values_list("pk", flat=True)]
    partner_player = (
        Player.objects.filter(user_id=user_id, partner__isnull=False)
        .values_list("partner__key_id", "external_id")
        .first()
    )
    if partner_player is not None:
        names.append(partner_player_name(*partner_player))
    return names


@receiver(post_save, sender=User)
def forget_saved_user(sender, instance, created=False, **kwargs):
    if not created:
        auth_forget_with_commit(_names_of_user(instance.pk), what=f"user {instance.pk}")


@receiver(pre_save, sender=Player)
def notice_partner_player_identity(sender, instance, **kwargs):
    """A player's partner or external id may change (accounts/identity.py): the old one is forgotten too."""
    instance._auth_names_before = _names_of_user(instance.user_id) if instance.pk is not None else []


@receiver(post_save, sender=Player)
@receiver(post_delete, sender=Player)
def forget_saved_player(sender, instance, **kwargs):
    names = set(getattr(instance, "_auth_names_before", [])) | set(_names_of_user(instance.user_id))
    if instance.partner_id is not None:  # a new player: what was remembered is that it did not exist
        names.add(
            partner_player_name(
                Partner.objects.values_list("key_id", flat=True).get(pk=instance.partner_id), instance.external_id
            )
        )
    auth_forget_with_commit(sorted(names), what=f"player {instance.pk}")


@receiver(pre_save, sender=Partner)
def notice_partner_key(sender, instance, **kwargs):
    instance._key_id_before = (
        Partner.objects.filter(pk=instance.pk).values_list("key_id", flat=True).first() if instance.pk else None
    )


@receiver(post_save, sender=Partner)
@receiver(post_delete, sender=Partner)
def forget_saved_partner(sender, instance, **kwargs):
    names = {partner_name(instance.key_id)}
    if getattr(instance, "_key_id_before", None):
        names.add(partner_name(instance._key_id_before))
    auth_forget_with_commit(sorted(names), what=f"partner {instance.pk}")


@receiver(cache_recovered)
def forget_everything_remembered(sender, cache, **kwargs):
    """A version change may have failed during the outage: this process starts afresh."""
    auth_forget_everything()
