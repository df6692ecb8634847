"""/: the home page lists the benchmark families and tasks of scoring's registry."""

import scoring


def test_it_lists_the_three_families_with_their_descriptions(client, db):
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert len(scoring.FAMILIES) == 3
    for family in scoring.FAMILIES.values():
        assert f"<h2>{family.name}</h2>" in body
        assert family.paper_url in body
    assert "MUDI" in body and "ImDrug" in body and "ChemicalX" in body


def test_it_links_every_task_and_the_benchmarks_page(client, db):
    body = client.get("/").content.decode()
    for slug in scoring.TASKS:
        assert f'href="/tasks/{slug}/"' in body
    assert 'href="/benchmarks/"' in body


def test_it_names_each_tasks_primary_metric(client, db):
    body = client.get("/").content.decode()
    mudi = scoring.get_task("mudi")
    assert mudi.metric(mudi.primary).name in body


def test_anonymous_visitors_are_offered_sign_up_and_log_in(client, db):
    body = client.get("/").content.decode()
    assert 'href="/accounts/signup/"' in body and 'href="/accounts/login/"' in body


def test_logged_in_users_see_their_name_and_no_sign_up(client, alice):
    client.force_login(alice)
    body = client.get("/").content.decode()
    assert 'href="/accounts/profile/">alice</a>' in body
    assert 'href="/accounts/signup/"' not in body


def test_it_is_responsive_and_uses_the_site_stylesheet(client, db):
    body = client.get("/").content.decode()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in body
    assert 'href="/static/css/site.css"' in body
