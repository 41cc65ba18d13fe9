"""The suite's parallel workers each take a Redis database of their own (ginsite.settings.redis_url_of_worker)."""

from ginsite.settings import redis_url_of_worker


def test_each_worker_takes_the_database_after_the_urls_own():
    assert redis_url_of_worker("redis://127.0.0.1:6379/0", "gw0") == "redis://127.0.0.1:6379/1"
    assert redis_url_of_worker("redis://127.0.0.1:6379/0", "gw1") == "redis://127.0.0.1:6379/2"
    assert redis_url_of_worker("redis://127.0.0.1:6379/4", "gw1") == "redis://127.0.0.1:6379/6"


def test_a_url_without_a_database_number_counts_from_zero():
    assert redis_url_of_worker("redis://127.0.0.1:6379", "gw0") == "redis://127.0.0.1:6379/1"
    assert redis_url_of_worker("redis://127.0.0.1:6379/", "gw1") == "redis://127.0.0.1:6379/2"


def test_outside_the_workers_the_url_stays():
    assert redis_url_of_worker("redis://127.0.0.1:6379/0", None) == "redis://127.0.0.1:6379/0"
    assert redis_url_of_worker("redis://127.0.0.1:6379/0", "master") == "redis://127.0.0.1:6379/0"
    assert redis_url_of_worker("", "gw0") == ""
