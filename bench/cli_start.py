"""How long the ``ddi-leaderboard`` command takes to start, against ``python -c pass`` measured in the same run.

Run: ``.venv/bin/python bench/cli_start.py [--repeat 5]``

Each command runs in a fresh interpreter (this checkout's client and scoring on PYTHONPATH), with no
server: ``--help`` and ``--version`` parse and print; ``tasks`` starts, builds its client and fails to
connect to a closed port (exit 5); ``validate`` checks a 12-row MUDI file against a given inputs file,
so it loads pandas and scikit-learn, the one kind of command that should. Prints the best of --repeat
wall-clock seconds per command and its ratio to the bare interpreter.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAIRS = [(f"DB{i:05d}", f"DB{i + 100:05d}") for i in range(12)]


def best_of(command: list[str], env: dict, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "client"), str(REPO)])}
    with tempfile.TemporaryDirectory() as folder:
        env.update({"XDG_CONFIG_HOME": folder, "XDG_CACHE_HOME": folder})
        inputs, prediction = Path(folder) / "inputs.csv", Path(folder) / "pred.csv"
        inputs.write_text("Drug1,Drug2\n" + "".join(f"{a},{b}\n" for a, b in PAIRS))
        prediction.write_text("Drug1,Interaction,Drug2\n" + "".join(f"{a},Synergism,{b}\n" for a, b in PAIRS))
        cli = [sys.executable, "-m", "ddi_leaderboard"]
        baseline = best_of([sys.executable, "-c", "pass"], env, args.repeat)
        commands = {
            "--help": [*cli, "--help"],
            "--version": [*cli, "--version"],
            "tasks (no server)": [*cli, "--url", "http://127.0.0.1:9", "tasks"],
            "validate mudi": [*cli, "validate", "mudi", str(prediction), "--inputs", str(inputs)],
        }
        print(f"{'python -c pass':<20} {baseline:6.3f} s   1.0x")
        for name, command in commands.items():
            seconds = best_of(command, env, args.repeat)
            print(f"{name:<20} {seconds:6.3f} s  {seconds / baseline:5.1f}x")


if __name__ == "__main__":
    main()
