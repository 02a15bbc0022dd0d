"""Seamless partners' accounts (sharded by player like the house, and allowed below zero: not wallets) and the entries that move money with their wallets."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0007_partner_wallet_url'),
        ('ledger', '0008_lock_free_accounts'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='account',
            name='account_one_per_partner_kind',
        ),
        migrations.RemoveConstraint(
            model_name='account',
            name='account_owner_matches_kind',
        ),
        migrations.AlterField(
            model_name='account',
            name='kind',
            field=models.CharField(choices=[('player_wallet', 'Player wallet'), ('player_in_play', 'Player money in play'), ('house', 'House bankroll (shard)'), ('partner_settlement', 'Partner settlement'), ('partner_seamless', 'Partner seamless wallet'), ('outside_world', 'Outside world (operator cash movements)')], max_length=24),
        ),
        migrations.AlterField(
            model_name='journalentry',
            name='kind',
            field=models.CharField(choices=[('deposit', 'Deposit (play money or cash in)'), ('withdrawal', 'Withdrawal'), ('stake', 'Stake into play'), ('settlement', 'Round settlement'), ('transfer_in', 'Partner transfer in'), ('transfer_out', 'Partner transfer out'), ('adjustment', 'Operator adjustment'), ('reversal', 'Reversal'), ('seamless_debit', "Debited from a seamless partner's wallet"), ('seamless_credit', "Credited to a seamless partner's wallet")], max_length=16),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.UniqueConstraint(condition=models.Q(('partner__isnull', False)), fields=('kind', 'currency', 'partner', 'shard'), name='account_one_per_partner_kind'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind__in', ('player_wallet', 'player_in_play')), ('player__isnull', False)), models.Q(('kind__in', ['partner_settlement', 'partner_seamless']), ('partner__isnull', False)), models.Q(('kind__in', ['house', 'outside_world']), ('partner__isnull', True), ('player__isnull', True)), _connector='OR'), name='account_owner_matches_kind'),
        ),
    ]
