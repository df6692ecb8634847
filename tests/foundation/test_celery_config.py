"""The Celery app: JSON only, late acknowledgement, time limits, and the beat schedule apps register into."""

from leaderboard.celery import app, register_periodic_task


def test_messages_are_json_only():
    assert app.conf.task_serializer == "json"
    assert app.conf.result_serializer == "json"
    assert app.conf.accept_content == ["json"]


def test_tasks_are_acknowledged_late_and_time_limited():
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert 0 < app.conf.task_soft_time_limit < app.conf.task_time_limit


def test_tasks_run_in_a_worker_not_eagerly():
    assert app.conf.task_always_eager is False


def test_the_heartbeat_is_in_the_beat_schedule(settings):
    entry = app.conf.beat_schedule["ops.heartbeat"]
    assert entry["task"] == "ops.heartbeat"
    assert entry["schedule"] == float(settings.OPS_HEARTBEAT_SECONDS)


def test_apps_register_periodic_tasks_that_expire_after_one_period():
    register_periodic_task("test.example", "ops.heartbeat", every_seconds=300, queue="celery")
    try:
        entry = app.conf.beat_schedule["test.example"]
        assert entry == {"task": "ops.heartbeat", "schedule": 300.0, "options": {"expires": 300.0, "queue": "celery"}}
    finally:
        del app.conf.beat_schedule["test.example"]


def test_the_heartbeat_task_is_registered():
    app.loader.import_default_modules()
    assert "ops.heartbeat" in app.tasks
