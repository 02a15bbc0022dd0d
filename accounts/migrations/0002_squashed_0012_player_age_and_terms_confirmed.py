"""Accounts' migrations 0002 to 0012 in one: what of its models needs the ledger's tables (a
transfer's journal entry) and the constraints; 0001 makes the rest (the models as they are now)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('accounts', '0002_initial'),
        ('accounts', '0003_player_language'),
        ('accounts', '0004_user_username_skeleton'),
        ('accounts', '0005_partner_webhook_url_public_addresses'),
        ('accounts', '0006_api_tokens_and_identity_changes'),
        ('accounts', '0007_partner_wallet_url'),
        ('accounts', '0008_partner_origins_and_game_sessions'),
        ('accounts', '0009_transfer_reference_once_per_partner'),
        ('accounts', '0010_partner_nonces_move_to_core'),
        ('accounts', '0011_staff_credential_resets'),
        ('accounts', '0012_player_age_and_terms_confirmed'),
    ]

    dependencies = [
        ('accounts', '0001_initial'),
        ('ledger', '0001_squashed_0011_post_entries_together'),
    ]

    operations = [
        migrations.AddField(
            model_name='transfer',
            name='entry',
            field=models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='transfer', to='ledger.journalentry'),
        ),
        migrations.AddField(
            model_name='transfer',
            name='partner',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='transfers', to='accounts.partner'),
        ),
        migrations.AddField(
            model_name='transfer',
            name='player',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='transfers', to='accounts.player'),
        ),
        migrations.AddConstraint(
            model_name='credentialreset',
            constraint=models.CheckConstraint(condition=models.Q(('decided_by__isnull', True), models.Q(models.Q(('decided_by', models.F('proposed_by')), _negated=True), models.Q(('decided_by', models.F('user')), _negated=True)), _connector='OR'), name='credential_reset_four_eyes'),
        ),
        migrations.AddConstraint(
            model_name='credentialreset',
            constraint=models.CheckConstraint(condition=models.Q(('proposed_by', models.F('user')), _negated=True), name='credential_reset_not_own'),
        ),
        migrations.AddConstraint(
            model_name='partneroriginchange',
            constraint=models.CheckConstraint(condition=models.Q(('decided_by__isnull', True), models.Q(('decided_by', models.F('proposed_by')), _negated=True), _connector='OR'), name='origin_change_four_eyes'),
        ),
        migrations.AddConstraint(
            model_name='player',
            constraint=models.UniqueConstraint(condition=models.Q(('partner__isnull', False)), fields=('partner', 'external_id'), name='player_unique_external_id_per_partner'),
        ),
        migrations.AddConstraint(
            model_name='player',
            constraint=models.CheckConstraint(condition=models.Q(('currency__regex', '^[A-Z]{3}$')), name='player_currency_iso'),
        ),
        migrations.AddConstraint(
            model_name='player',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('age_confirmed_at__isnull', True), ('age_confirmed_minimum__isnull', True)), models.Q(('age_confirmed_at__isnull', False), ('age_confirmed_minimum__gte', 18)), _connector='OR'), name='player_age_confirmed_with_its_minimum'),
        ),
        migrations.AddConstraint(
            model_name='player',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('terms_accepted_at__isnull', True), ('terms_version', '')), models.Q(('terms_accepted_at__isnull', False), models.Q(('terms_version', ''), _negated=True)), _connector='OR'), name='player_terms_accepted_with_their_version'),
        ),
        migrations.AddIndex(
            model_name='gamesession',
            index=models.Index(fields=['player', 'ended_at'], name='game_session_player_open'),
        ),
        migrations.AddConstraint(
            model_name='playeridentitychange',
            constraint=models.CheckConstraint(condition=models.Q(('decided_by__isnull', True), models.Q(('decided_by', models.F('proposed_by')), _negated=True), _connector='OR'), name='identity_change_four_eyes'),
        ),
        migrations.AddConstraint(
            model_name='transfer',
            constraint=models.CheckConstraint(condition=models.Q(('amount__gt', 0)), name='transfer_amount_positive'),
        ),
        migrations.AddConstraint(
            model_name='transfer',
            constraint=models.UniqueConstraint(fields=('partner', 'reference'), name='transfer_reference_once_per_partner'),
        ),
    ]
