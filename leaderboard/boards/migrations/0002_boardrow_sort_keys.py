# Board rows keep sort keys instead of stored ranks; ranks are computed when rows are read.
# Boards are derived data: the old rows are dropped here and `manage.py recompute_boards`
# rebuilds them (see docs/leaderboards.md).

from django.db import migrations, models


def drop_boards(apps, schema_editor):
    apps.get_model("boards", "Board").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("boards", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(drop_boards, migrations.RunPython.noop),
        migrations.RemoveIndex(model_name="boardrow", name="boardrow_page_idx"),
        migrations.RemoveField(model_name="boardrow", name="rank"),
        migrations.RemoveField(model_name="boardrow", name="position"),
        migrations.RemoveField(model_name="boardrow", name="ranks"),
        migrations.RemoveField(model_name="boardrow", name="positions"),
        migrations.AddField(
            model_name="boardrow", name="method_key", field=models.CharField(default="", max_length=100), preserve_default=False
        ),
        migrations.AddField(
            model_name="boardrow", name="quality", field=models.CharField(default="", max_length=400), preserve_default=False
        ),
        migrations.AddField(
            model_name="boardrow", name="tail", field=models.CharField(default="", max_length=60), preserve_default=False
        ),
        migrations.AddField(model_name="boardrow", name="sort_keys", field=models.JSONField(default=dict)),
        migrations.AddIndex(
            model_name="boardrow",
            index=models.Index(fields=["board", "is_public", "quality", "tail"], name="boardrow_rank_idx"),
        ),
        migrations.AddIndex(
            model_name="boardrow",
            index=models.Index(fields=["board", "team", "method_key"], name="boardrow_group_idx"),
        ),
    ]
