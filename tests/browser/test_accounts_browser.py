"""A real browser signs up, logs out and logs back in (Playwright driving Debian's chromium)."""

import pytest
from django.core import mail

from leaderboard.accounts.models import Team, User
from tests.conftest import save_screenshot, signup_link

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PASSWORD = "a-long-unusual-pass-42"


def test_a_visitor_signs_up_logs_out_and_logs_back_in(page, live_server):
    page.goto("/")
    assert page.locator("h2", has_text="MUDI").is_visible()
    save_screenshot(page, "home")

    page.get_by_role("link", name="Sign up").first.click()
    page.wait_for_url("**/accounts/signup/")
    page.fill("#id_username", "dora")
    page.fill("#id_email", "dora@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/accounts/signup/sent/")
    assert page.get_by_text("We sent a message to dora@example.org.").is_visible()
    save_screenshot(page, "signup-sent")
    page.goto(signup_link(mail.outbox[-1]))
    save_screenshot(page, "signup-confirm")
    page.get_by_role("button", name="Create my account").click()
    page.wait_for_url("**/accounts/profile/")
    assert page.locator("h1", has_text="dora").is_visible()
    assert "Welcome, dora" in page.content()
    assert Team.objects.filter(personal=True, memberships__user__username="dora").exists()

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{live_server.url}/")
    assert page.get_by_role("link", name="Log in").is_visible()

    page.get_by_role("link", name="Log in").click()
    page.fill("#id_username", "dora")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/accounts/profile/")
    assert page.get_by_role("navigation").get_by_role("link", name="dora").is_visible()
    assert User.objects.get(username="dora").last_login is not None
    # A Content-Security-Policy violation (an inline script, a blocked resource) shows up here.
    assert page.console_errors == []


def test_a_wrong_password_shows_an_error_in_the_browser(page, alice):
    page.goto("/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "not-her-password")
    page.get_by_role("button", name="Log in").click()
    assert page.get_by_text("correct username and password").is_visible()


def test_the_home_page_fits_a_phone_screen(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 375, "height": 740})
    try:
        pg = context.new_page()
        pg.goto("/")
        # No sideways scrolling of the page itself: wide tables scroll inside their own box.
        assert pg.evaluate("document.documentElement.scrollWidth") <= 375
        save_screenshot(pg, "home-phone")
    finally:
        context.close()
