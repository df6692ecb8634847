"""The board's ranking setting is called ``direction`` in code, as in the URL (it was ``view``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("boards", "0002_boardrow_sort_keys")]

    operations = [
        migrations.RemoveConstraint(model_name="board", name="board_unique_phase_view"),
        migrations.RenameField(model_name="board", old_name="view", new_name="direction"),
        migrations.AddConstraint(
            model_name="board",
            constraint=models.UniqueConstraint(fields=("phase", "direction"), name="board_unique_phase_direction"),
        ),
    ]
