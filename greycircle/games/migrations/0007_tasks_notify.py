"""On PostgreSQL, every insert into the task queue's table sends NOTIFY greycircle_tasks, which
wakes the idle task workers (greycircle.runtime.worker.TaskListener) instead of leaving the task to
their next poll. Other databases have no trigger: their workers poll (and the embedded worker is
woken in-process)."""

from django.db import migrations

CHANNEL = "greycircle_tasks"  # greycircle.runtime.worker.TASKS_CHANNEL
FUNCTION = "greycircle_tasks_notify"
TRIGGER = "greycircle_tasks_notify"


def _table(apps, schema_editor) -> str:
    model = apps.get_model("django_tasks_database", "DBTaskResult")
    return schema_editor.quote_name(model._meta.db_table)


def trigger_create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = _table(apps, schema_editor)
    # One notification per statement (PostgreSQL folds identical ones of a transaction into
    # one, sent at commit), with no payload: workers just look at the queue.
    schema_editor.execute(
        f"""
        CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger AS $$
        BEGIN
            PERFORM pg_notify('{CHANNEL}', '');
            RETURN NULL;
        END;
        $$ LANGUAGE plpgsql
        """
    )
    schema_editor.execute(f"DROP TRIGGER IF EXISTS {TRIGGER} ON {table}")
    schema_editor.execute(
        f"CREATE TRIGGER {TRIGGER} AFTER INSERT ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()"
    )


def trigger_drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP TRIGGER IF EXISTS {TRIGGER} ON {_table(apps, schema_editor)}")
    schema_editor.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}()")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_deadlines"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(trigger_create, trigger_drop, elidable=False)]
