"""Issue 23, point 5: a MUDI submission page has a per-class table in both settings, counts as integers."""

from __future__ import annotations

import re

import pytest

from tests.submissions.helpers import make_submission, score_now

# It saves or reads files through the site's storages (CI runs it against a bucket too).
pytestmark = pytest.mark.storage


def test_a_scored_mudi_submission_shows_per_class_counts_as_whole_numbers(client, alice, mudi_phase, sent):
    submission = make_submission(mudi_phase, alice.personal_team, alice)
    score_now(submission)
    client.force_login(alice)
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    for setting in ("aware", "agnostic"):
        table = html[html.index(f'id="per-class-{setting}"') :]
        table = table[: table.index("</table>")]
        assert '<th scope="col" class="num">Support</th>' in table
        for name in ("Synergism", "Antagonism", "New Effect"):
            assert f'data-class="{name}"' in table
        # TP, FP, FN and support are integers: no decimals after the three rates.
        row = re.search(r'data-class="Synergism">(.*?)</tr>', table).group(1)
        cells = re.findall(r'<td class="num">([^<]*)</td>', row)
        assert len(cells) == 7
        assert all(re.fullmatch(r"\d\.\d{4}", c) for c in cells[:3])
        assert all(re.fullmatch(r"\d+", c) for c in cells[3:])
    # The list of every stored value prints counts without decimals too.
    assert not re.search(r'<code>[^<]*/(tp|fp|fn|support)</code></td><td>[^<]*</td><td class="num">\d+\.\d', html)
