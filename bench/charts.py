"""Time to interactive of the three boards, with lazy charts (the default) and with every chart at load.

    .venv/bin/python bench/charts.py [--url http://127.0.0.1:8000] [--runs 5] [--width 1366]

Needs a running site with the demo data (`make run`, or any server the URL names) and
Debian's Chromium at /usr/bin/chromium. For each board (MUDI, an ImDrug task, a
ChemicalX task) and each mode, a fresh browser context (empty cache) loads the page
``--runs`` times; a run measures, from navigation start:

- **table**: DOMContentLoaded, when the board's table is parsed and its links work;
- **interactive**: when every chart that is in the window at load is drawn and the main
  thread then goes idle (the next ``requestIdleCallback``): the page answers input.
  Lazy mode draws no chart below the fold, so its interactive time is the table's plus
  whatever the window shows; eager mode (``?charts=eager``) fetches plotly.js and draws
  every chart before it is idle.

Prints the median of each, and the ratio eager / lazy measured in this run (no absolute
threshold: the machine's load changes the seconds, not much the ratio).
"""

from __future__ import annotations

import argparse
import statistics
import sys

BOARDS = ("mudi", "imdrug-hiv-random", "chemicalx-drugcomb")
CHROMIUM = "/usr/bin/chromium"

# Resolves with ms since navigation start once the charts in the window are drawn and the thread is idle.
INTERACTIVE = """() => new Promise(resolve => {
  const inWindow = el => { const r = el.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; };
  const drawn = () => {
    const eager = /charts=eager/.test(location.search);
    const charts = Array.from(document.querySelectorAll('[data-chart]')).filter(el => eager || inWindow(el));
    return charts.every(el => el.getAttribute('data-rendered'));
  };
  const wait = () => {
    if (document.readyState !== 'loading' && drawn()) {
      requestIdleCallback(() => resolve(performance.now()), { timeout: 5000 });
    } else { setTimeout(wait, 10); }
  };
  wait();
})"""


def measure(browser, url: str, width: int) -> tuple[float, float]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(url, wait_until="commit")
    interactive = page.evaluate(INTERACTIVE)
    table = page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
    context.close()
    return table / 1000, interactive / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--width", type=int, default=1366)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        for slug in BOARDS:
            result = {}
            for mode, query in (("lazy", ""), ("eager", "?charts=eager")):
                url = f"{args.url.rstrip('/')}/tasks/{slug}/{query}"
                measure(browser, url, args.width)  # warm the server's board cache
                runs = [measure(browser, url, args.width) for _ in range(args.runs)]
                result[mode] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
            rows.append((slug, result))
        browser.close()
    print(f"{'board':<22} {'mode':<6} {'table s':>8} {'interactive s':>14}")
    for slug, result in rows:
        for mode in ("lazy", "eager"):
            table, interactive = result[mode]
            print(f"{slug:<22} {mode:<6} {table:>8.2f} {interactive:>14.2f}")
        ratio = result["eager"][1] / result["lazy"][1]
        print(f"{slug:<22} eager/lazy interactive: {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
