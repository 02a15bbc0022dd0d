"""The ledger's migrations 0001 to 0011 in one: its models as they are now, its functions, each
loaded from its file (ledger/sql/*.sql, core/sql_functions.py), and the triggers that keep the
ledger honest whatever code talks to it:

* UPDATE and DELETE of entries, postings and seals are refused (`ledger_refuse_change`);
* the statement that writes postings is checked when it ends: every entry it touched balances per
  currency, every new posting is in its account's currency (`ledger_check_new_postings`);
* an entry with fewer than two postings is refused at commit (`ledger_check_new_entry`)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.sql_functions import function_create


APPEND_ONLY_TABLES = ("ledger_journalentry", "ledger_posting", "ledger_entryseal")

TRIGGERS = [
    *[
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}"
        " FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()"
        for table in APPEND_ONLY_TABLES
    ],
    "CREATE TRIGGER ledger_postings_balance AFTER INSERT ON ledger_posting"
    " REFERENCING NEW TABLE AS new_postings FOR EACH STATEMENT EXECUTE FUNCTION ledger_check_new_postings()",
    "CREATE CONSTRAINT TRIGGER ledger_journalentry_has_postings AFTER INSERT ON ledger_journalentry"
    " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_new_entry()",
]
TRIGGERS_DROPPED = [
    "DROP TRIGGER ledger_journalentry_has_postings ON ledger_journalentry",
    "DROP TRIGGER ledger_postings_balance ON ledger_posting",
    *[f"DROP TRIGGER {table}_append_only ON {table}" for table in APPEND_ONLY_TABLES],
]


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('ledger', '0001_initial'),
        ('ledger', '0002_database_guards'),
        ('ledger', '0003_post_entry_function'),
        ('ledger', '0004_posting_lines_in_balance_order'),
        ('ledger', '0005_posting_functions'),
        ('ledger', '0006_fewer_indexes_per_round'),
        ('ledger', '0007_leaner_posting'),
        ('ledger', '0008_lock_free_accounts'),
        ('ledger', '0009_partner_seamless_account'),
        ('ledger', '0010_lock_accounts_with_one_plan'),
        ('ledger', '0011_post_entries_together'),
    ]

    dependencies = [
        ('accounts', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='VerificationRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('started_at', models.DateTimeField()),
                ('finished_at', models.DateTimeField()),
                ('ok', models.BooleanField()),
                ('triggered_by', models.CharField(max_length=64)),
                ('summary', models.JSONField()),
            ],
            options={
                'ordering': ['-started_at'],
            },
        ),
        migrations.CreateModel(
            name='Account',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('player_wallet', 'Player wallet'), ('player_in_play', 'Player money in play'), ('house', 'House bankroll (shard)'), ('partner_settlement', 'Partner settlement'), ('partner_seamless', 'Partner seamless wallet'), ('outside_world', 'Outside world (operator cash movements)')], max_length=24)),
                ('currency', models.CharField(max_length=3)),
                ('shard', models.PositiveSmallIntegerField(default=0)),
                ('balance', models.BigIntegerField(default=0)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('partner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='ledger_accounts', to='accounts.partner')),
                ('player', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='ledger_accounts', to='accounts.player')),
            ],
        ),
        migrations.CreateModel(
            name='JournalEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('idempotency_key', models.CharField(max_length=300)),
                ('request_hash', models.CharField(max_length=64)),
                ('kind', models.CharField(choices=[('deposit', 'Deposit (play money or cash in)'), ('withdrawal', 'Withdrawal'), ('stake', 'Stake into play'), ('settlement', 'Round settlement'), ('transfer_in', 'Partner transfer in'), ('transfer_out', 'Partner transfer out'), ('adjustment', 'Operator adjustment'), ('reversal', 'Reversal'), ('seamless_debit', "Debited from a seamless partner's wallet"), ('seamless_credit', "Credited to a seamless partner's wallet")], max_length=16)),
                ('reason', models.CharField(blank=True, max_length=500)),
                ('actor_type', models.CharField(choices=[('player', 'Player'), ('partner', 'Partner'), ('operator', 'Operator'), ('system', 'System job')], max_length=10)),
                ('actor_id', models.CharField(max_length=64)),
                ('reference_type', models.CharField(blank=True, max_length=32)),
                ('reference_id', models.CharField(blank=True, max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                ('reverses', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='reversal', to='ledger.journalentry')),
            ],
            options={
                'verbose_name_plural': 'journal entries',
            },
        ),
        migrations.CreateModel(
            name='EntrySeal',
            fields=[
                ('sequence', models.BigAutoField(primary_key=True, serialize=False)),
                ('previous_hash', models.CharField(max_length=64)),
                ('hash', models.CharField(max_length=64, unique=True)),
                ('sealed_at', models.DateTimeField(auto_now_add=True)),
                ('entry', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='seal', to='ledger.journalentry')),
            ],
        ),
        migrations.CreateModel(
            name='Adjustment',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('amount', models.BigIntegerField(help_text='Minor units: positive credits the player, negative debits.')),
                ('currency', models.CharField(max_length=3)),
                ('reason', models.CharField(max_length=500)),
                ('status', models.CharField(choices=[('proposed', 'Proposed'), ('approved', 'Approved and posted'), ('rejected', 'Rejected')], default='proposed', max_length=10)),
                ('proposed_at', models.DateTimeField(auto_now_add=True)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='adjustments', to='accounts.player')),
                ('proposed_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('entry', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='adjustment', to='ledger.journalentry')),
            ],
        ),
        migrations.CreateModel(
            name='Posting',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('direction', models.CharField(choices=[('D', 'Debit'), ('C', 'Credit')], max_length=1)),
                ('amount', models.BigIntegerField()),
                ('currency', models.CharField(max_length=3)),
                ('balance_after', models.BigIntegerField()),
                ('account', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='postings', to='ledger.account')),
                ('entry', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='postings', to='ledger.journalentry')),
            ],
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.UniqueConstraint(condition=models.Q(('player__isnull', False)), fields=('kind', 'currency', 'player'), name='account_one_per_player_kind'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.UniqueConstraint(condition=models.Q(('partner__isnull', False)), fields=('kind', 'currency', 'partner', 'shard'), name='account_one_per_partner_kind'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.UniqueConstraint(condition=models.Q(('partner__isnull', True), ('player__isnull', True)), fields=('kind', 'currency', 'shard'), name='account_one_per_system_shard'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind__in', ('player_wallet', 'player_in_play')), _negated=True), ('balance__gte', 0), _connector='OR'), name='account_player_balance_not_negative'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind__in', ('player_wallet', 'player_in_play')), ('player__isnull', False)), models.Q(('kind__in', ['partner_settlement', 'partner_seamless']), ('partner__isnull', False)), models.Q(('kind__in', ['house', 'outside_world']), ('partner__isnull', True), ('player__isnull', True)), _connector='OR'), name='account_owner_matches_kind'),
        ),
        migrations.AddConstraint(
            model_name='account',
            constraint=models.CheckConstraint(condition=models.Q(('currency__regex', '^[A-Z]{3}$')), name='account_currency_iso'),
        ),
        migrations.AddIndex(
            model_name='journalentry',
            index=models.Index(fields=['reference_type', 'reference_id'], name='ledger_jour_referen_351d6b_idx'),
        ),
        migrations.AddConstraint(
            model_name='journalentry',
            constraint=models.UniqueConstraint(fields=('idempotency_key',), name='journalentry_key_once'),
        ),
        migrations.AddConstraint(
            model_name='adjustment',
            constraint=models.CheckConstraint(condition=models.Q(('amount', 0), _negated=True), name='adjustment_amount_not_zero'),
        ),
        migrations.AddConstraint(
            model_name='adjustment',
            constraint=models.CheckConstraint(condition=models.Q(('decided_by__isnull', True), models.Q(('decided_by', models.F('proposed_by')), _negated=True), _connector='OR'), name='adjustment_four_eyes'),
        ),
        migrations.AddIndex(
            model_name='posting',
            index=models.Index(fields=['account', 'id'], name='ledger_posting_account_line'),
        ),
        migrations.AddConstraint(
            model_name='posting',
            constraint=models.CheckConstraint(condition=models.Q(('amount__gt', 0)), name='posting_amount_positive'),
        ),
        migrations.AddConstraint(
            model_name='posting',
            constraint=models.CheckConstraint(condition=models.Q(('direction__in', ['D', 'C'])), name='posting_direction_valid'),
        ),
        function_create('ledger', 'ledger_refuse_change'),
        function_create('ledger', 'ledger_check_new_entry'),
        function_create('ledger', 'ledger_check_new_postings'),
        function_create('ledger', 'ledger_player_accounts'),
        function_create('ledger', 'ledger_house_account'),
        function_create('ledger', 'ledger_lock_accounts'),
        function_create('ledger', 'ledger_post_entries'),
        function_create('ledger', 'ledger_post_entry'),
        migrations.RunSQL(TRIGGERS, TRIGGERS_DROPPED),
    ]
