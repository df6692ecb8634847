"""/accounts/login/ and /accounts/logout/ (POST only)."""

from tests.conftest import PASSWORD


def test_the_login_page_shows_the_form_and_links(client, db):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    body = response.content.decode()
    assert 'name="username"' in body and 'name="password"' in body
    assert "/accounts/password/reset/" in body and "/accounts/signup/" in body


def test_a_user_logs_in_with_the_right_password(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    assert client.get("/accounts/profile/").status_code == 200


def test_a_wrong_password_is_refused(client, alice):
    response = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()
    assert client.get("/accounts/profile/").status_code == 302


def test_login_goes_back_to_the_next_page(client, alice):
    response = client.post(
        "/accounts/login/?next=/teams/new/", {"username": "alice", "password": PASSWORD, "next": "/teams/new/"}
    )
    assert response["Location"] == "/teams/new/"


def test_logout_by_post_logs_the_user_out(client, alice):
    client.force_login(alice)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/accounts/profile/").status_code == 302


def test_logout_by_get_is_refused_and_keeps_the_session(client, alice):
    client.force_login(alice)
    assert client.get("/accounts/logout/").status_code == 405
    assert client.get("/accounts/profile/").status_code == 200


def test_the_navigation_offers_a_logout_button_to_logged_in_users(client, alice):
    client.force_login(alice)
    body = client.get("/").content.decode()
    assert 'action="/accounts/logout/"' in body and "alice" in body
