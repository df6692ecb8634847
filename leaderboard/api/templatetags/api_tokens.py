"""``{% api_tokens_for user as tokens %}``: the profile's token list without touching the profile view."""

from django import template

from leaderboard.api.models import ApiToken
from leaderboard.api.web import TokenForm

register = template.Library()


@register.simple_tag
def api_tokens_for(user) -> dict:
    return {"tokens": list(ApiToken.objects.filter(user=user)), "form": TokenForm()}
