from __future__ import annotations

from django import forms

from leaderboard.methods.models import MethodProfile


class MethodProfileForm(forms.ModelForm):
    # Explicit for the scheme a bare "example.org" gets (Django 6's default, https).
    paper_url = forms.URLField(required=False, assume_scheme="https", label="Paper")
    code_url = forms.URLField(required=False, assume_scheme="https", label="Code")

    class Meta:
        model = MethodProfile
        fields = ["paper_url", "code_url", "description"]
        labels = {"paper_url": "Paper", "code_url": "Code", "description": "Description"}
        help_texts = {
            "paper_url": "The paper that describes this method (shown on its page).",
            "code_url": "Where its code is.",
            "description": "A few sentences, plain text (2,000 characters at most).",
        }
        widgets = {"description": forms.Textarea(attrs={"rows": 5})}
