"""Dockerfile and docker-compose.yml, checked by parsing (no Docker engine runs here)."""

from __future__ import annotations

import importlib
import json
import re
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def dockerfile_stages(text: str) -> list[dict]:
    """Split a Dockerfile into stages: [{"from": ..., "name": ..., "instructions": [(KEYWORD, args)]}]."""
    lines, current = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        lines.append(current + line)
        current = ""
    stages: list[dict] = []
    for line in lines:
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            match = re.match(r"(\S+)(?:\s+AS\s+(\S+))?", args, re.IGNORECASE)
            stages.append({"from": match.group(1), "name": match.group(2), "instructions": []})
        else:
            stages[-1]["instructions"].append((keyword, " ".join(args.split())))
    return stages


@pytest.fixture(scope="module")
def stages() -> list[dict]:
    return dockerfile_stages((REPO / "Dockerfile").read_text())


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def _args(stage: dict, keyword: str) -> list[str]:
    return [args for kw, args in stage["instructions"] if kw == keyword]


def _env_value(stage: dict, name: str) -> str | None:
    for args in _args(stage, "ENV"):
        for match in re.finditer(r"(\w+)=(\S+)", args):
            if match.group(1) == name:
                return match.group(2)
    return None


def test_the_image_installs_the_requirements_make_run_installs_into_a_venv_on_the_path(stages):
    builder, runtime = stages[0], stages[-1]
    copied = {args.split()[-1]: args.split()[0] for args in _args(builder, "COPY")}
    installed = [
        run.split("pip install -r", 1)[1].split()[0] for run in _args(builder, "RUN") if "pip install -r" in run
    ]
    assert installed and all(copied.get(path) == "requirements.txt" for path in installed)
    assert "-r requirements.txt" in (REPO / "Makefile").read_text()
    # The runtime stage takes the builder's virtualenv and puts it first on PATH.
    venv = next(args.split()[1] for args in _args(runtime, "COPY") if args.startswith(f"--from={builder['name']}"))
    assert (_env_value(runtime, "PATH") or "").startswith(f"{venv}/bin:")


def test_the_image_runs_the_python_the_project_targets(stages):
    with open(REPO / "pyproject.toml", "rb") as handle:
        target = tomllib.load(handle)["tool"]["ruff"]["target-version"]  # "py311"
    version = f"{target[2]}.{target[3:]}"
    for stage in stages:
        assert re.match(rf"python:{re.escape(version)}\b", stage["from"]), stage["from"]


def test_the_image_copies_the_app_that_make_run_serves(stages):
    runtime = stages[-1]
    workdir = _args(runtime, "WORKDIR")[-1]
    assert f". {workdir}" in _args(runtime, "COPY")
    ignored = (REPO / ".dockerignore").read_text().split()
    for needed in ("manage.py", "leaderboard", "scoring", "templates", "static", "requirements.txt"):
        assert needed not in ignored and (REPO / needed).exists(), needed


def test_the_runtime_runs_as_a_non_root_user(stages):
    runtime = stages[-1]
    users = _args(runtime, "USER")
    assert users and users[-1] not in {"root", "0"}
    assert any(users[-1] in run for run in _args(runtime, "RUN")), "the user is created in the image"
    # USER comes after every RUN, so nothing at run time has root's rights.
    keywords = [kw for kw, _ in runtime["instructions"]]
    assert keywords.index("USER") > max(i for i, kw in enumerate(keywords) if kw == "RUN")


def test_static_files_are_collected_at_build_with_a_key_not_used_at_runtime(stages):
    runtime = stages[-1]
    collect = [run for run in _args(runtime, "RUN") if "collectstatic" in run]
    assert len(collect) == 1
    build_key = re.search(r"SECRET_KEY=(\S+)", collect[0]).group(1)
    env = " ".join(_args(runtime, "ENV"))
    assert "SECRET_KEY" not in env, "the build-time key must not become the runtime key"
    assert "DEBUG=0" in env
    assert build_key != "insecure-development-key-do-not-use-in-production"


def _requirement_names() -> set[str]:
    lines = (REPO / "requirements.txt").read_text().splitlines()
    return {re.split(r"[\[=<>]", line)[0].lower() for line in lines if line and not line.startswith("#")}


def test_the_default_command_serves_the_wsgi_app_with_a_pinned_gunicorn(stages):
    cmd = json.loads(_args(stages[-1], "CMD")[-1])
    assert cmd[0] == "gunicorn" and "gunicorn" in _requirement_names()
    module, _, attribute = cmd[1].partition(":")
    assert callable(getattr(importlib.import_module(module), attribute))
    assert "EXPOSE" in [kw for kw, _ in stages[-1]["instructions"]]


def test_dockerignore_keeps_local_state_out_of_the_image():
    ignored = (REPO / ".dockerignore").read_text().split()
    for entry in (".git", ".venv", "var", "test-artifacts"):
        assert entry in ignored


def test_compose_declares_the_five_services_and_a_migrate_step(compose):
    assert {"web", "worker", "beat", "postgres", "redis", "migrate"} <= set(compose["services"])
    migrate = compose["services"]["migrate"]
    assert "manage.py migrate --noinput" in " ".join(migrate["command"])
    assert "load_benchmarks" in " ".join(migrate["command"])
    for name in ("web", "worker", "large-worker", "background-worker", "beat"):
        depends = compose["services"][name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"


@pytest.mark.parametrize("name", ["web", "worker", "large-worker", "background-worker", "beat", "postgres", "redis"])
def test_every_long_running_service_has_a_health_check(compose, name):
    check = compose["services"][name]["healthcheck"]
    assert check["test"] and check["test"][0] in {"CMD", "CMD-SHELL"}
    assert check["interval"] and check["retries"] >= 1


def test_the_web_health_check_asks_healthz(compose):
    assert "http://127.0.0.1:8000/healthz" in " ".join(compose["services"]["web"]["healthcheck"]["test"])


def test_web_worker_and_beat_run_one_image_with_the_apps_of_this_repository(compose):
    services = compose["services"]
    assert services["web"]["image"] == services["worker"]["image"] == services["beat"]["image"]
    assert services["web"]["command"][0] == "gunicorn"
    module, _, attribute = services["web"]["command"][1].partition(":")
    assert callable(getattr(importlib.import_module(module), attribute))
    for name, role in (
        ("worker", "worker"),
        ("large-worker", "worker"),
        ("background-worker", "worker"),
        ("beat", "beat"),
    ):
        command = services[name]["command"]
        assert command[0] == "celery" and role in command
        app = command[command.index("-A") + 1]
        # ``celery -A leaderboard`` finds the package's ``celery_app``, the app make run's worker uses.
        assert importlib.import_module(app).celery_app.main == "leaderboard"
    assert services["web"]["ports"]


@pytest.mark.parametrize("name", ["web", "worker", "large-worker", "background-worker", "beat", "migrate"])
def test_the_app_services_get_the_production_environment(compose, name):
    env = compose["services"][name]["environment"]
    assert env["DEBUG"] == "0"
    assert env["SECRET_KEY"].startswith("${SECRET_KEY:?"), "no default secret key in compose"
    assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert "ALLOWED_HOSTS" in env


def test_web_and_worker_share_the_private_storage_volume(compose):
    services = compose["services"]

    def mount_for(service: str, path: str) -> str:
        return next(v.split(":")[0] for v in services[service]["volumes"] if v.split(":")[1] == path)

    root = services["web"]["environment"]["PRIVATE_STORAGE_ROOT"]
    assert services["worker"]["environment"]["PRIVATE_STORAGE_ROOT"] == root
    assert mount_for("web", root) == mount_for("worker", root) == mount_for("migrate", root)
    assert mount_for("web", root) in compose["volumes"]


def test_postgres_and_redis_keep_their_data_in_volumes(compose):
    services = compose["services"]
    assert any(v.endswith(":/var/lib/postgresql/data") for v in services["postgres"]["volumes"])
    assert any(v.endswith(":/data") for v in services["redis"]["volumes"])
    env = services["postgres"]["environment"]
    assert env["POSTGRES_DB"] == "leaderboard" and env["POSTGRES_USER"] == "leaderboard"


def _consumed_queues(command: list[str]) -> set[str]:
    return set(command[command.index("-Q") + 1].split(","))


def test_scoring_has_workers_of_its_own_and_every_queue_a_consumer(compose, settings):
    services = compose["services"]
    small = _consumed_queues(services["worker"]["command"])
    large = _consumed_queues(services["large-worker"]["command"])
    background = _consumed_queues(services["background-worker"]["command"])
    assert small == {settings.SCORING_QUEUE}
    assert large == {settings.SCORING_LARGE_QUEUE, settings.SCORING_QUEUE}
    assert background == {settings.BACKGROUND_QUEUE}
    assert small | large | background == set(settings.CELERY_TASK_QUEUES)
    for name in ("worker", "large-worker", "background-worker"):
        node = services[name]["command"][services[name]["command"].index("-n") + 1].split("@")[0]
        assert f"--destination {node}@$$HOSTNAME" in " ".join(services[name]["healthcheck"]["test"])
