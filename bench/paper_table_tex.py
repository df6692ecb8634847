"""Compile a board's LaTeX table with a real TeX engine, where one is installed (a docs step, not CI).

    .venv/bin/python bench/paper_table_tex.py http://127.0.0.1:8000/tasks/mudi/table.tex?top=10
    .venv/bin/python bench/paper_table_tex.py table.tex

The table (a URL of a running site, or a file) goes into a minimal article with
booktabs and url, and pdflatex, lualatex, xelatex or tectonic (the first found)
compiles it in a temporary folder. Prints the engine and "compiled" with the PDF's
size, or the engine's last lines and exit 1; exit 0 with "skipped" when no engine
is installed. The tests parse the same LaTeX with pylatexenc instead
(tests/boards/test_paper_tables.py): a TeX installation would cost CI more than it is worth.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ENGINES = ("pdflatex", "lualatex", "xelatex", "tectonic")
DOCUMENT = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{booktabs}
\usepackage{url}
\begin{document}
%s
\end{document}
"""


def read_table(source: str) -> str:
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=30) as response:  # noqa: S310 (a URL the user gives)
            return response.read().decode("utf-8")
    return Path(source).read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    engine = next((name for name in ENGINES if shutil.which(name)), None)
    if engine is None:
        print(f"skipped: no TeX engine found ({', '.join(ENGINES)})")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        tex = Path(tmp) / "table.tex"
        tex.write_text(DOCUMENT % read_table(argv[0]), encoding="utf-8")
        command = [engine, "table.tex"] if engine == "tectonic" else [engine, "-interaction=nonstopmode", "table.tex"]
        done = subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=120, check=False)
        pdf = Path(tmp) / "table.pdf"
        if done.returncode != 0 or not pdf.exists():
            print(f"{engine}: failed\n" + "\n".join((done.stdout + done.stderr).splitlines()[-20:]))
            return 1
        print(f"{engine}: compiled, {pdf.stat().st_size} bytes of PDF")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
