"""In a real browser: the site's 404 with a way to log in, the invitation badge, team management, logout, passwords."""

from __future__ import annotations

import pytest

from leaderboard.accounts.models import Membership
from tests.conftest import PASSWORD, save_screenshot
from tests.submissions.helpers import make_submission, mudi_truth_csv, standing_phase_with_truth

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def log_in(page, username: str) -> None:
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()


@pytest.mark.storage
def test_a_logged_out_member_following_a_private_link_is_told_to_log_in_and_comes_back(page, alice_lab, alice, bob):
    phase = standing_phase_with_truth("mudi", mudi_truth_csv())
    submission = make_submission(phase, alice_lab, alice, method_name="LabSecret", is_public=False)
    page.goto(f"/submissions/{submission.pk}/")
    assert page.locator("h1", has_text="Page not found").is_visible()
    assert page.locator(".site-header .brand").is_visible()
    save_screenshot(page, "404-logged-out")
    page.locator("main").get_by_role("link", name="log in", exact=True).click()
    page.wait_for_url("**/accounts/login/**")
    log_in(page, "bob")
    page.wait_for_url(f"**/submissions/{submission.pk}/")
    assert page.get_by_text("LabSecret").first.is_visible()


def test_an_invitation_shows_a_badge_that_leads_to_the_answer(page, alice_lab, alice, charlie):
    from leaderboard.accounts.services import invite

    invite(alice_lab, alice, charlie)
    page.goto("/accounts/login/")
    log_in(page, "charlie")
    page.wait_for_url("**/accounts/profile/")
    page.goto("/benchmarks/")
    badge = page.locator(".site-header .invitations-badge")
    assert badge.is_visible() and badge.inner_text() == "1 invitation"
    badge.click()
    page.get_by_role("button", name="Accept").click()
    page.wait_for_url("**/teams/alice-lab/")
    assert page.locator(".site-header .invitations-badge").count() == 0


def test_leaving_a_team_asks_first_and_logging_out_says_so(page, alice_lab, bob):
    page.goto("/accounts/login/")
    log_in(page, "bob")
    page.wait_for_url("**/accounts/profile/")
    page.goto("/teams/alice-lab/")
    page.get_by_role("link", name="Leave Alice Lab…").click()
    page.wait_for_url("**/teams/alice-lab/leave/confirm/")
    assert page.locator("h1", has_text="Leave Alice Lab?").is_visible()
    assert Membership.objects.filter(team=alice_lab, user=bob).exists()
    page.get_by_role("button", name="Leave Alice Lab").click()
    page.wait_for_url("**/accounts/profile/")
    assert page.get_by_text("You left Alice Lab.").is_visible()
    assert not Membership.objects.filter(team=alice_lab, user=bob).exists()

    page.get_by_role("button", name="Log out").click()
    assert page.get_by_text("You have logged out.").is_visible()


def test_an_owner_hands_over_and_removes_members_from_the_team_page(page, alice_lab, alice, bob, charlie):
    Membership.objects.create(team=alice_lab, user=charlie)
    page.goto("/accounts/login/")
    log_in(page, "alice")
    page.wait_for_url("**/accounts/profile/")
    page.goto("/teams/alice-lab/")
    assert page.locator("#team-submissions").is_visible()
    save_screenshot(page, "team-owner")
    page.get_by_role("button", name="Remove charlie from Alice Lab").click()
    assert page.get_by_text("charlie is no longer a member of Alice Lab.").is_visible()
    page.get_by_role("button", name="Hand Alice Lab over to bob").click()
    assert page.get_by_text("bob now owns Alice Lab; you are a member.").is_visible()
    assert page.get_by_role("button", name="Remove bob from Alice Lab").count() == 0


def test_a_too_common_password_is_flagged_next_to_the_password_field(page, db):
    page.goto("/accounts/signup/")
    page.fill("#id_username", "dora")
    page.fill("#id_email", "dora@example.org")
    page.fill("#id_password1", "password123")
    page.fill("#id_password2", "password123")
    page.get_by_role("button", name="Sign up").click()
    error = page.get_by_text("This password is too common.")
    assert error.is_visible()
    # Between the password field's label and the confirmation field: it belongs to the password.
    assert error.bounding_box()["y"] < page.locator("#id_password2").bounding_box()["y"]
    assert page.console_errors == []
