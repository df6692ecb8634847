"""Every `python -m scoring` command the README shows runs as written from a fresh clone (via .venv/bin).

The README's placeholders are filled with small files: `test.csv` a MUDI truth and
`my.csv` a prediction for it; `docs/submissions.md` a copy, which the command must
leave as it is (the table is current). A command written with alternatives (`a|b`)
is a pattern, not a command, and is skipped.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.submissions.helpers import mudi_prediction_csv, mudi_truth_csv

REPO = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"`(\.venv/bin/python -m scoring [^`]+)`")


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    return [c for c in dict.fromkeys(COMMAND.findall(text)) if "|" not in c]


def test_the_readme_writes_scoring_commands_with_the_venvs_python():
    text = (REPO / "README.md").read_text()
    assert re.findall(r"(?<![/\w])python -m scoring", text) == []
    assert len(readme_commands()) >= 3


@pytest.mark.parametrize("command", readme_commands())
def test_a_readme_command_runs_as_written(command, tmp_path):
    files = {"test.csv": mudi_truth_csv(), "my.csv": mudi_prediction_csv()}
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    copy = tmp_path / "submissions.md"
    shutil.copy(REPO / "docs" / "submissions.md", copy)
    args = shlex.split(command)
    args = [str(tmp_path / a) if a in files else str(copy) if a == "docs/submissions.md" else a for a in args]
    result = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert copy.read_text() == (REPO / "docs" / "submissions.md").read_text()
