"""MUDI by drug on a submission page: F1 by drug-frequency bucket and the drugs with the most errors.

Both come from scoring (``scoring.metrics.mudi_drugs``), computed by the worker:
the bucket F1s are stored results (read with ``Result.objects.by_submission``),
the per-drug counts sit in the stored report. Nothing here reads a file.

Which drugs a submission gets wrong tells which test rows it gets wrong, so the
per-drug part is shown only where the truth is public anyway
(``labels_are_public``): a standing phase of a task whose labels are published.
On an organized challenge's phase (hidden labels) it is never shown.

``drug_names`` is the one place a page turns DrugBank ids into names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.apps import apps

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions.models import Result, Submission
from scoring.keys import DRUG_BUCKETS, MUDI_SETTINGS, mudi_bucket_key
from scoring.kinds.mudi import SETTING_NAMES


def labels_are_public(phase: Phase) -> bool:
    """Whether analysis that reveals which test rows are wrong may be shown to anyone on ``phase``."""
    return phase.challenge.kind == Challenge.Kind.STANDING and bool(phase.task.public_labels) and not phase.split_spec


@dataclass
class DrugAnalysis:
    # [{"label", "pairs", "values": [(setting name, macro F1, micro F1)]}] per bucket with pairs.
    buckets: list[dict] = field(default_factory=list)
    # The drugs with the most errors (report entries plus the drug's "name", None for a drug not loaded),
    # None when the labels are not public.
    top_errors: list[dict] | None = None


def drug_names(ids: Iterable[str]) -> dict[str, str]:
    """The names of the loaded drugs among ``ids``, in one query; an id with no drug page is absent.

    The drug pages' model is looked up by name: the drugs app sits above this one.
    """
    drug = apps.get_model("drugs", "Drug")
    return dict(drug.objects.filter(pk__in=set(ids)).values_list("pk", "name"))


def bucket_keys() -> list[str]:
    return [
        mudi_bucket_key(setting, bucket.slug, stat)
        for setting in MUDI_SETTINGS
        for bucket in DRUG_BUCKETS
        for stat in ("macro_f1", "micro_f1", "pairs")
    ]


def bucket_rows(values: dict[str, float]) -> list[dict]:
    """The buckets with at least one gold pair, each with its F1s per setting."""
    rows = []
    for bucket in DRUG_BUCKETS:
        pairs = values.get(mudi_bucket_key("aware", bucket.slug, "pairs"))
        if pairs is None:
            continue
        rows.append(
            {
                "slug": bucket.slug,
                "label": bucket.label,
                "short": bucket.short,
                "pairs": int(pairs),
                "values": [
                    (
                        SETTING_NAMES[setting],
                        values.get(mudi_bucket_key(setting, bucket.slug, "macro_f1")),
                        values.get(mudi_bucket_key(setting, bucket.slug, "micro_f1")),
                    )
                    for setting in MUDI_SETTINGS
                ],
            }
        )
    return rows


def drug_analysis(submission: Submission) -> DrugAnalysis | None:
    """What the submission page shows by drug; None for a task that is not MUDI or a score from before it."""
    if submission.phase.task.kind != "mudi":
        return None
    values = Result.objects.filter(submission=submission).by_submission(bucket_keys()).get(str(submission.pk), {})
    drugs = (submission.report or {}).get("drugs")
    if not values and not drugs:
        return None
    analysis = DrugAnalysis(buckets=bucket_rows(values))
    if labels_are_public(submission.phase) and isinstance(drugs, dict):
        entries = [e for e in drugs.get("top_errors", []) if isinstance(e, dict) and isinstance(e.get("drug"), str)]
        names = drug_names(e["drug"] for e in entries) if entries else {}
        analysis.top_errors = [{**e, "name": names.get(e["drug"])} for e in entries]
    return analysis
