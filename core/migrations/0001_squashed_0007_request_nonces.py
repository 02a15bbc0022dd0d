"""core's migrations 0001 to 0007 in one: its models as they are now and its functions, each
loaded from its file (core/sql/*.sql, core/sql_functions.py)."""

from django.db import migrations, models

from core.sql_functions import function_create


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('core', '0001_initial'),
        ('core', '0002_idempotency_records_commit_with_their_work'),
        ('core', '0003_audit_record_function'),
        ('core', '0004_fewer_indexes_per_round'),
        ('core', '0005_idempotency_functions'),
        ('core', '0006_replay_the_first_answer_as_sent'),
        ('core', '0007_request_nonces'),
    ]

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='RequestNonce',
            fields=[
                ('key', models.CharField(max_length=150, primary_key=True, serialize=False)),
                ('created_at', models.DateTimeField(db_index=True)),
            ],
        ),
        migrations.CreateModel(
            name='AuditEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('actor_type', models.CharField(max_length=10)),
                ('actor_id', models.CharField(max_length=64)),
                ('action', models.CharField(max_length=64)),
                ('object_type', models.CharField(max_length=32)),
                ('object_id', models.CharField(max_length=64)),
                ('data', models.JSONField(blank=True, default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
                'indexes': [models.Index(fields=['object_type', 'object_id'], name='core_audite_object__bbabc4_idx'), models.Index(fields=['action'], name='audit_action')],
            },
        ),
        migrations.CreateModel(
            name='IdempotencyRecord',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('scope', models.CharField(max_length=80)),
                ('key', models.CharField(max_length=255)),
                ('request_hash', models.CharField(max_length=64)),
                ('response_status', models.PositiveSmallIntegerField(null=True)),
                ('response_body', models.JSONField(null=True)),
                ('response_text', models.TextField(null=True)),
                ('response_content_type', models.CharField(blank=True, max_length=64)),
                ('response_headers', models.JSONField(null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('scope', 'key'), name='idempotency_unique_per_caller')],
            },
        ),
        function_create('core', 'core_audit_record'),
        function_create('core', 'core_idempotency_claim'),
        function_create('core', 'core_idempotency_store'),
        function_create('core', 'core_nonce_claim'),
    ]
