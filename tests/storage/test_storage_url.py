"""STORAGE_URL picks where stored files live: local folders by default, else a private bucket."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from leaderboard.settings import file_storages


def test_without_a_storage_url_files_stay_in_local_folders():
    storages = file_storages("", Path("/srv/private"))
    assert storages["private"]["BACKEND"] == "django.core.files.storage.FileSystemStorage"
    assert storages["private"]["OPTIONS"]["location"] == "/srv/private"


def test_an_s3_url_puts_private_and_generated_files_under_its_prefix_in_a_private_bucket():
    storages = file_storages("s3://ddi-leaderboard/production/", Path("/unused"))
    for alias, location in (("private", "production/private"), ("default", "production/media")):
        options = storages[alias]["OPTIONS"]
        assert storages[alias]["BACKEND"] == "leaderboard.s3storage.PrivateS3Storage"
        assert (options["bucket_name"], options["location"]) == ("ddi-leaderboard", location)
    assert file_storages("s3://ddi-leaderboard", Path("/unused"))["private"]["OPTIONS"]["location"] == "private"


@pytest.mark.parametrize("url", ["gs://bucket/prefix", "s3://", "/srv/files", "bucket/prefix"])
def test_anything_but_an_s3_url_stops_the_start(url):
    with pytest.raises(ImproperlyConfigured, match="STORAGE_URL"):
        file_storages(url, Path("/unused"))


def test_the_bucket_storage_refuses_a_public_acl():
    from leaderboard.s3storage import PrivateS3Storage

    with pytest.raises(ValueError, match="public"):
        PrivateS3Storage(bucket_name="b", default_acl="public-read")
    storage = PrivateS3Storage(bucket_name="b", querystring_auth=False)
    assert storage.querystring_auth and storage.default_acl is None and not storage.file_overwrite
