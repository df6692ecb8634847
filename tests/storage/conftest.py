"""An S3-compatible bucket for the storage tests (moto's server in CI, started by .ci/run).

Each test gets its own prefix in the bucket and switches this process's storages to it;
a worker started with ``STORAGE_URL=bucket.url`` reads the same objects.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass

import pytest

from tests.conftest import _port_open, require


@dataclass
class Bucket:
    name: str
    prefix: str
    client: object

    @property
    def url(self) -> str:
        return f"s3://{self.name}/{self.prefix}"

    def keys(self) -> list[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.name, Prefix=f"{self.prefix}/")
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))

    def read(self, key: str) -> bytes:
        return self.client.get_object(Bucket=self.name, Key=key)["Body"].read()


@pytest.fixture
def bucket(settings):
    """This test's prefix in the test bucket; private storage points at it for the test."""
    endpoint = os.environ.get("AWS_S3_ENDPOINT_URL", "")
    require(bool(endpoint), "AWS_S3_ENDPOINT_URL is not set: no S3-compatible server to test against")
    require(_port_open(endpoint, 80), f"no S3 server answers at {endpoint}")
    import boto3
    from botocore.exceptions import ClientError

    from leaderboard.challenges.truth_cache import clear_cache
    from leaderboard.settings import file_storages

    client = boto3.client("s3", endpoint_url=endpoint, region_name=settings.AWS_S3_REGION_NAME or "us-east-1")
    name = os.environ.get("TEST_S3_BUCKET", "leaderboard-test")
    try:
        client.head_bucket(Bucket=name)
    except ClientError:
        client.create_bucket(Bucket=name)
    found = Bucket(name=name, prefix=f"test-{uuid.uuid4().hex[:12]}", client=client)
    settings.STORAGES = {**settings.STORAGES, **file_storages(found.url, settings.PRIVATE_STORAGE_ROOT)}
    clear_cache()
    yield found
    clear_cache()
