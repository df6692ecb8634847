"""schemathesis against the live schema of a test server: every check it has, zero failures.

Every operation, positive and negative data, a few examples each, with a token, so it runs in about a
minute: no 5xx, every status, content type, header and body as documented, schema-violating requests
refused and valid ones accepted, the token's absence noticed where one is needed.
(Driven with hypothesis directly: schemathesis' pytest plugin does not load under pytest 9.)
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import CHECKS as ALL_CHECKS
from schemathesis.generation import GenerationMode

from tests.api.test_schema import api_paths
from tests.submissions.helpers import make_submission, mudi_truth_csv, standing_phase_with_truth

pytestmark = [pytest.mark.storage, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CHECKS = list(ALL_CHECKS.get_all())
EXAMPLES = 8


def test_every_operation_conforms_to_the_live_schema(live_server, alice, make_token, settings):
    settings.API_RATE_LIMITS = {"token": "100000/minute", "upload": "100000/minute"}
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    make_submission(phase, alice.personal_team, alice)
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/v1/schema/?format=json")
    # A board's filters are query parameters of its task's declarations, not of the schema: no undeclared ones.
    schema.config.generation.update(allow_extra_parameters=False)
    headers = {"Authorization": f"Bearer {make_token(alice, 'submit')}"}
    tested = []
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @examples(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            def conforms(case) -> None:
                case.call_and_validate(base_url=live_server.url, headers=headers, checks=CHECKS)

            try:
                conforms()
            except Unsatisfiable:
                # Nothing to negate: a public read with no parameters (its token is optional) has no invalid form.
                assert mode is GenerationMode.NEGATIVE, operation.label
        tested.append(operation.label)
    # Every route of the API was exercised (each new endpoint too, without editing this test).
    assert {label.split(" ", 1)[1] for label in tested} == api_paths(), tested
