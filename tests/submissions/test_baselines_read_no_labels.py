"""No baseline reads the test labels: a baseline is a function of the test inputs alone."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import scoring
from leaderboard.challenges.demo_truths import demo_truth
from leaderboard.submissions.baselines import build_baselines

LABEL_COLUMNS = ("Interaction", "label", "y")


@pytest.mark.parametrize("slug", sorted(scoring.TASKS))
def test_changing_every_label_changes_no_baseline(slug, tmp_path, settings):
    settings.SHARED_DATA_DIR = tmp_path  # synthetic demo truths (small and fast)
    task = scoring.get_task(slug)
    truth = demo_truth(task, tmp_path).path
    before = [(b.method_name, b.csv_bytes()) for b in build_baselines(task, truth)]
    assert before, "every hosted task has a baseline"

    frame = pd.read_csv(truth)
    column = next(c for c in LABEL_COLUMNS if c in frame.columns)
    # Other labels for the same inputs: the rows' labels (with the class's long-tail group, if any) shuffled.
    moved = [column, *(c for c in ("group",) if c in frame.columns)]
    order = np.roll(np.random.default_rng(7).permutation(len(frame)), 1)
    frame[moved] = frame[moved].iloc[order].to_numpy()
    changed = tmp_path / "changed.csv"
    frame.to_csv(changed, index=False)
    assert not pd.read_csv(changed)[column].equals(pd.read_csv(truth)[column])

    after = [(b.method_name, b.csv_bytes()) for b in build_baselines(task, changed)]
    assert after == before


def test_the_mudi_baseline_is_random_and_marked_as_such(tmp_path, settings):
    settings.SHARED_DATA_DIR = tmp_path
    task = scoring.get_task("mudi")
    baselines = build_baselines(task, demo_truth(task, tmp_path).path)
    assert [b.method_name for b in baselines] == ["Random"]
    labels = set(baselines[0].frame["Interaction"])
    assert labels <= set(task.classes) and len(labels) == len(task.classes)
