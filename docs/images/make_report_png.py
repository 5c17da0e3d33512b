"""Make docs/images/report.png: the top of a `tombench report --html` page, as headless Chromium draws it.

    python docs/images/make_report_png.py            # a few minutes: offline baselines only, no network

Runs a small `exploretom_random` grid with four offline baselines and the transfer fixture's stories with one, writes
the page with `tombench report --html`, opens it in Debian's headless Chromium (chromium, chromium-driver; selenium
and Pillow from the dev extra) and saves the first screen, scaled down and reduced to 256 colours so the file stays
small.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("report.png")
FOUND = ROOT / "tests" / "tasks" / "exploretom" / "fixtures" / "found_stories.jsonl"
BASELINES = ("tombench/oracle", "tombench/recency", "tombench/primacy", "tombench/reality")


def _logs(folder: Path, cwd: Path) -> None:
    """The runs, in `folder` (named relative to the working folder, as the page shows it)."""
    grid = ["-T", "story_types=tomi,tomi+asymmetric,tomi+room-changes,tomi+info-exchange", "-T", "people=2,3,4",
            "-T", "moves=2,3,4"]
    for model in BASELINES:
        subprocess.run(["inspect", "eval", "tombench/exploretom_random", *grid, "--model", model, "--log-dir",
                        str(folder), "--display", "none"], check=True, cwd=cwd)
    shutil.copy(FOUND, cwd / "found_stories.jsonl")
    subprocess.run(["inspect", "eval", "tombench/exploretom_transfer", "-T", "stories=found_stories.jsonl", "--model",
                    "tombench/recency", "--log-dir", str(folder), "--display", "none"], check=True, cwd=cwd)


def _shot(page: Path, png: Path) -> None:
    from PIL import Image
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService("/usr/bin/chromedriver"))
    try:
        driver.set_window_size(1200, 2200)
        driver.get(page.as_uri())
        driver.save_screenshot(str(png))
    finally:
        driver.quit()
    image = Image.open(png).convert("RGB")
    image = image.resize((image.width // 2, image.height // 2), Image.Resampling.LANCZOS)
    image.quantize(256).save(png, optimize=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        _logs(Path("logs"), Path(tmp))
        subprocess.run([sys.executable, "-m", "tombench", "report", "tables", "logs", "--html", str(page)],
                       check=True, stdout=subprocess.DEVNULL, cwd=tmp)
        _shot(page, OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
