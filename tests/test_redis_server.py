"""The tests' Redis is their own: a server they started (or one given for tests
through MULDVARP_TEST_REDIS_URL), never the machine's Redis on 6379 by accident,
and never the product's REDIS_URL setting."""

from __future__ import annotations

import os

import pytest
import redis

from tests.redis_server import ENV, started_here, test_redis_url

pytestmark = pytest.mark.store


def test_the_tests_use_a_redis_of_their_own() -> None:
    url = test_redis_url()
    assert "REDIS_URL" not in os.environ  # the product's setting is never followed
    assert os.environ[ENV] == url  # children of the run share it
    client = redis.Redis.from_url(url)
    try:
        folder = client.config_get("dir")["dir"]
        if started_here():
            # started by the tests: on a port of its own, in a throw-away folder
            assert not url.startswith("redis://127.0.0.1:6379/"), url
            assert "muldvarp-test-redis-" in folder, folder
        assert client.config_get("save")["save"] == ""  # keeps nothing on disk
    finally:
        client.close()
