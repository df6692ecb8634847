"""README, configuration docs, Makefile and .ci/run say what the project really does."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _makefile_targets() -> set[str]:
    makefile = (REPO / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z][\w.-]*):(?!=)", makefile, re.MULTILINE))


def _readme_commands() -> list[str]:
    """The commands of the README's first code block (indented lines), without their comments."""
    lines = (REPO / "README.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("    "))
    block = []
    for line in lines[start:]:
        if not line.startswith("    "):
            break
        block.append(line.split("#")[0].strip())
    return block


def test_the_readme_starts_with_its_title_and_gives_make_run_and_make_test_first():
    text = (REPO / "README.md").read_text()
    assert text.startswith("# ")
    assert _readme_commands() == ["make run", "make test"]
    assert "docs/screenshots/home.png" in text
    assert (REPO / "docs" / "screenshots" / "home.png").is_file()


def test_the_readme_commands_are_targets_of_the_makefile():
    targets = _makefile_targets()
    for command in _readme_commands():
        program, target = command.split()[:2]
        assert program == "make" and target in targets, command


def test_make_run_serves_on_the_port_given_as_port():
    dry = subprocess.run(
        ["make", "-n", "run", "PORT=8123"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    assert "manage.py runall --port 8123" in dry


def test_every_environment_variable_of_the_settings_is_documented():
    settings_text = (REPO / "leaderboard" / "settings.py").read_text()
    names = set(re.findall(r'env_(?:str|bool|int|list|path)\(\s*"([A-Z_]+)"', settings_text))
    assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "EMAIL_BACKEND"} <= names
    documented = (REPO / "docs" / "configuration.md").read_text()
    missing = sorted(name for name in names if f"`{name}`" not in documented)
    assert missing == []


def test_the_makefile_has_the_two_targets_and_runs_what_the_readme_promises():
    makefile = (REPO / "Makefile").read_text()
    assert re.search(r"^run:", makefile, re.MULTILINE) and re.search(r"^test:", makefile, re.MULTILINE)
    for step in (
        "manage.py migrate",
        "manage.py collectstatic",
        "manage.py load_benchmarks --demo",
        "manage.py ensure_demo_user",
        "manage.py runall",
        "ruff check",
        "manage.py check",
        "makemigrations --check --dry-run",
        "apt-get install -y chromium",
    ):
        assert step in makefile, step
    assert "-eq 5" in makefile, "pytest's exit code 5 (no tests) must count as success"
    # The suite in parallel processes, and the lint and suite phases timed for .ci/run.
    assert "pytest -n $(TEST_PROCESSES) --dist loadfile" in makefile
    assert 'echo "lint ' in makefile and 'echo "suite ' in makefile


def test_ci_starts_services_with_the_agreed_commands_and_runs_make_test():
    script = (REPO / ".ci" / "run").read_text()
    assert script.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in script
    assert "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start" in script
    assert (
        'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no '
        "--dir /var/lib/redis --logfile /var/log/redis/ci.log"
    ) in script
    assert "pg_isready -h 127.0.0.1" in script and "redis-cli -h 127.0.0.1 ping" in script
    assert "export CI=true" in script
    assert "export DATABASE_URL=postgres://postgres@127.0.0.1:5432/test" in script
    assert "export REDIS_URL=redis://127.0.0.1:6379/0" in script
    assert script.rstrip().endswith("make test")
    # The bucket pass runs the tests marked storage, and the script reports each phase's wall time.
    assert '-m "storage and not browser"' in script
    for phase in ("timed install ", "timed s3-pass ", "timed broker-pass ", "trap print_phase_times EXIT"):
        assert phase in script, phase
    for forbidden in ("pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main stop", "redis-cli shutdown"):
        assert forbidden not in script
