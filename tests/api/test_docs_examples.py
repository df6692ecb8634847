"""Every curl example in docs/api.md, run against a test server: each answers the status its "# → " line says."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from leaderboard.challenges.models import Challenge, Phase
from tests.boards.conftest import mudi_metrics, scored
from tests.conftest import REPO, require
from tests.submissions.helpers import invalid_mudi_csv, mudi_prediction_csv, mudi_truth_csv, standing_phase_with_truth

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
DOC = REPO / "docs" / "api.md"
# Every curl call reports its status on stderr; stdout stays what the reader sees.
PRELUDE = "curl() { command curl --write-out '%{stderr}%{http_code}\\n' \"$@\"; }\n"


def examples() -> list[tuple[int, str]]:
    found = []
    for block in re.findall(r"```sh\n(.*?)```", DOC.read_text(), flags=re.S):
        first, _, body = block.partition("\n")
        match = re.fullmatch(r"# → (\d{3})", first.strip())
        assert match, f"a shell example without its '# → status' line: {block!r}"
        found.append((int(match.group(1)), body))
    return found


def test_the_doc_has_an_example_for_every_endpoint():
    text = "".join(body for _, body in examples())
    for path in ("/api/v1/tasks\"", "/api/v1/tasks/mudi\"", "/leaderboard", "/api/v1/challenges\"",
                 "/phases/mudi\"", "/phases/mudi/submissions", "/tasks/mudi/submissions", "/submissions/$SUBMISSION_ID",
                 "/api/v1/submissions?", "-X PATCH", "inputs.csv", "example.csv", "If-None-Match",
                 "/phases/test/truth", "/api/v1/challenges/mudi-2027/rerun", "/moderation",
                 "/teams/alice-lab/disqualify", "/api/v1/challenges/mudi-2027/export.csv", "/final",
                 "/phases/test/reveal", "/submissions/preflight",
                 "/file", "/registration"):  # fmt: skip
        assert path in text, path


def moderation_examples(alice) -> dict[str, str]:
    """What the moderation examples act on in mudi-2027: team Alice Lab registered, with one scored and one
    failed submission on its phase "test". Returns the examples' variable."""
    from leaderboard.accounts.services import create_team
    from leaderboard.challenges.models import Phase, Registration
    from tests.moderation.conftest import make_submission

    phase = Phase.objects.get(challenge__slug="mudi-2027", slug="test")
    lab = create_team(alice, "Alice Lab")
    Registration.objects.create(challenge=phase.challenge, team=lab, user=alice)
    moderated = make_submission(phase, lab, "GraphDDI")
    # The final-selection example (engine lane): Alice Lab chooses one of its own on a phase that allows it.
    Phase.objects.filter(pk=phase.pk).update(final_selection_allowed=True)
    chosen = make_submission(phase, lab, "FinalNet")
    make_submission(phase, lab, "Broken", status="failed")
    return {"MODERATED_ID": str(moderated.pk), "FINAL_ID": str(chosen.pk)}


@pytest.mark.storage
def test_every_curl_example_answers_its_documented_status(live_server, alice, make_token, tmp_path, settings):
    require(shutil.which("curl") is not None, "curl is not installed")
    settings.API_RATE_LIMITS = {"token": "10000/minute", "upload": "10000/minute"}
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    submission = scored(
        phase, alice.personal_team, "GraphDDI", mudi_metrics(0.7), declarations={"modalities": ["graph"]}
    )
    (tmp_path / "predictions.csv").write_bytes(mudi_prediction_csv())
    (tmp_path / "invalid.csv").write_bytes(invalid_mudi_csv())
    organized = Challenge.objects.create(slug="mudi-2027", title="MUDI 2027", kind="organized")
    organized.organizers.add(alice)
    Phase.objects.create(challenge=organized, slug="test", title="Test", task_slug="mudi")
    (tmp_path / "truth.csv").write_bytes(mudi_truth_csv())
    (tmp_path / "invalid-truth.csv").write_bytes(invalid_mudi_csv())
    env = dict(
        os.environ,
        DDI_URL=live_server.url,
        DDI_TOKEN=make_token(alice, "submit"),
        SUBMISSION_ID=str(submission.pk),
        DDI_ORGANIZER_TOKEN=make_token(alice, "organize"),
    )
    env.update(moderation_examples(alice))
    ran = 0
    for expected, body in examples():
        done = subprocess.run(["bash", "-c", PRELUDE + body], env=env, cwd=tmp_path, capture_output=True, text=True,
                              timeout=60)  # fmt: skip
        statuses = done.stderr.split()
        assert done.returncode == 0 and statuses, (body, done.stderr)
        assert int(statuses[-1]) == expected, (body, done.stdout[:2000])
        ran += 1
    assert ran >= 19
