"""The static HTML page in a real headless Chromium: it loads, sorts by a column, and filters.

Needs Debian's `chromium` and `chromium-driver` (installed by .ci/run) and the `selenium` package; skips with the
reason otherwise. Never downloads a browser.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tombench.leaderboard import render

from .chart_page import chart_traces, check_traces_match_cells
from .rows_factory import row

pytestmark = pytest.mark.browser



@pytest.fixture
def page(tmp_path: Path) -> Path:
    rows = [
        row("org/big-70b", 0.91, 0.02, open_weights=True, model_size_b=70.0),
        row("api/closed", 0.88, 0.02, open_weights=False, model_size_b=None),
        row("org/small-1b", 0.60, 0.05, open_weights=True, model_size_b=1.0),
        row("org/<b>tiny</b>", 0.30, 0.05, open_weights=None, model_size_b=0.135, provider="custom"),
    ]
    path = tmp_path / "leaderboard.html"
    path.write_text(render(rows, "html"), encoding="utf-8")
    return path


def _visible_models(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    rows = driver.find_elements(By.CSS_SELECTOR, "table.board tbody tr")
    return [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows if r.is_displayed()]


def _header(driver, title: str):
    from selenium.webdriver.common.by import By

    return next(h for h in driver.find_elements(By.CSS_SELECTOR, "table.board th") if h.text.startswith(title))


def test_rows_with_missing_values_keep_their_order(driver, tmp_path):
    """Issue #18.9: two rows missing the sort value compared as 1 both ways, so sorting reshuffled them."""
    from selenium.webdriver.common.by import By

    names = [f"api/closed-{c}" for c in "abcdef"]
    rows = [row(n, 0.9 - 0.01 * i, 0.001, open_weights=False, model_size_b=None) for i, n in enumerate(names)]
    path = tmp_path / "missing.html"
    path.write_text(render(rows + [row("org/small-1b", 0.5, 0.001, model_size_b=1.0)], "html"), encoding="utf-8")
    driver.get(path.as_uri())
    for _ in range(3):  # ascending, descending, ascending
        _header(driver, "Size").click()
        order = [r.find_elements(By.TAG_NAME, "td")[1].text for r in driver.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert order == ["org/small-1b", *names]


def test_page_loads_sorts_and_filters(driver, page):
    from selenium.webdriver.common.by import By

    driver.get(page.as_uri())
    assert driver.title == "tombench leaderboard"
    assert _visible_models(driver) == ["org/big-70b", "api/closed", "org/small-1b", "org/<b>tiny</b>"]
    ranks = [r.find_elements(By.TAG_NAME, "td")[0].text for r in driver.find_elements(By.CSS_SELECTOR, "tbody tr")]
    # 91±2 and 88±2 overlap, yet the test of their difference (p=0.037) separates them
    assert ranks == ["1", "2", "3", "4"]
    assert driver.find_elements(By.CSS_SELECTOR, "th.breakdown")  # breakdown columns present
    assert not driver.find_elements(By.TAG_NAME, "b")  # the model name was escaped, not parsed

    _header(driver, "Accuracy").click()  # ascending
    assert _visible_models(driver) == ["org/<b>tiny</b>", "org/small-1b", "api/closed", "org/big-70b"]
    _header(driver, "Accuracy").click()  # descending
    assert _visible_models(driver)[0] == "org/big-70b"
    _header(driver, "Size").click()  # numeric sort, unknown size last
    assert _visible_models(driver) == ["org/<b>tiny</b>", "org/small-1b", "org/big-70b", "api/closed"]

    _header(driver, "Size").click()  # descending: unknown size still last
    assert _visible_models(driver) == ["org/big-70b", "org/small-1b", "org/<b>tiny</b>", "api/closed"]
    _header(driver, "Size").click()  # ascending again

    driver.find_element(By.ID, "f-open").click()
    assert set(_visible_models(driver)) == {"org/small-1b", "org/big-70b"}
    size = driver.find_element(By.ID, "f-size")
    size.send_keys("10")
    assert _visible_models(driver) == ["org/small-1b"]
    driver.find_element(By.ID, "f-open").click()
    assert _visible_models(driver) == ["org/<b>tiny</b>", "org/small-1b"]
    size.clear()
    driver.find_element(By.ID, "f-text").send_keys("closed")
    assert _visible_models(driver) == ["api/closed"]


def _vs_next_targets(driver) -> list[tuple[str, str]]:
    """(model, the model its "vs next" tooltip is against) for each visible row, top to bottom."""
    from selenium.webdriver.common.by import By

    heads = [h.get_attribute("data-key") for h in driver.find_elements(By.CSS_SELECTOR, "table.board th")]
    col = heads.index("vs_next")
    out = []
    for r in driver.find_elements(By.CSS_SELECTOR, "table.board tbody tr"):
        if not r.is_displayed():
            continue
        cells = r.find_elements(By.TAG_NAME, "td")
        title = cells[col].get_attribute("title") or ""
        out.append((cells[1].text, title.split("against ", 1)[1].split(":")[0].split(" (")[0] if title else ""))
    return out


def test_vs_next_follows_the_rows_after_sorting_and_filtering(driver, page):
    """Issue #30.6: after a re-sort, "vs next" still compared each row with its neighbour of the ranked order."""
    from selenium.webdriver.common.by import By

    driver.get(page.as_uri())

    def consistent() -> list[tuple[str, str]]:
        pairs = _vs_next_targets(driver)
        models = [m for m, _ in pairs]
        assert [t for _, t in pairs] == models[1:] + [""]  # each row against the row shown below it
        return pairs

    consistent()
    _header(driver, "Size").click()
    assert [m for m, _ in consistent()] == ["org/<b>tiny</b>", "org/small-1b", "org/big-70b", "api/closed"]
    _header(driver, "Model").click()
    consistent()
    driver.find_element(By.ID, "f-open").click()  # hides rows: "next" is the next row still shown
    assert len(consistent()) == 2
    driver.find_element(By.ID, "f-open").click()
    assert len(consistent()) == 4


def test_wide_board_scrolls_in_its_box_and_the_legend_wraps(driver, tmp_path):
    """Issue #30.6: at 1400 px the legend and the breakdown columns were cut off."""
    from dataclasses import replace

    from selenium.webdriver.common.by import By

    from tombench.leaderboard import Breakdown

    groups = [Breakdown(dim, f"{dim}-group-{g}", 0.5, 0.05, 40, 0.35, 0.65, 9)
              for dim in ("action_set", "interesting", "order", "asymmetric", "people", "moves") for g in range(3)]
    rows = [replace(row(f"org/model-{i}", 0.9 - 0.1 * i), breakdowns=groups) for i in range(4)]
    path = tmp_path / "wide.html"
    path.write_text(render(rows, "html"), encoding="utf-8")
    driver.set_window_size(1400, 900)
    driver.get(path.as_uri())
    width = driver.execute_script("return window.innerWidth")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width  # the page never scrolls
    for item in driver.find_elements(By.CSS_SELECTOR, ".legend li"):
        assert item.is_displayed() and item.rect["x"] + item.rect["width"] <= width
    box = driver.find_element(By.CSS_SELECTOR, ".scroll")
    assert driver.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", box)
    last = driver.find_elements(By.CSS_SELECTOR, "th.breakdown")[-1]
    driver.execute_script("arguments[0].scrollIntoView({inline: 'end', block: 'nearest'})", last)
    left, right = driver.execute_script(
        "var b = arguments[0].getBoundingClientRect(), h = arguments[1].getBoundingClientRect();"
        "return [h.left - b.left, b.right - h.right];", box, last)
    assert left >= 0 and right >= -1  # the last breakdown column can be scrolled fully into view
    assert last.text == "moves: moves-group-2"


def _page_cells(driver, board: int) -> list[dict[str, str]]:  # noqa: ANN001
    """The cells of a board on the page, by column title, in the board's own order (`data-idx`)."""
    from selenium.webdriver.common.by import By

    table = driver.find_element(By.ID, f"board-{board}")
    heads = [h.text.rstrip(" ▲▼") for h in table.find_elements(By.TAG_NAME, "th")]
    rows = sorted(table.find_elements(By.CSS_SELECTOR, "tbody tr"), key=lambda r: int(r.get_attribute("data-idx")))
    return [dict(zip(heads, (c.get_attribute("textContent") for c in r.find_elements(By.TAG_NAME, "td")),
                     strict=True)) for r in rows]


def test_charts_draw_each_row_and_breakdown_with_the_numbers_of_the_table(driver, tmp_path):
    """The page draws what it ranks: per board, the headline and every breakdown group of every row as a bar with
    its 95% interval, the same numbers as the table's cells; names are drawn as typed; plotly.js is inline."""
    from dataclasses import replace

    from selenium.webdriver.common.by import By

    from tombench.leaderboard import Breakdown

    def groups(shift: float) -> list[Breakdown]:
        return [Breakdown("action_set", "tomi", 0.7 - shift, None, 60, 0.58 - shift, 0.8 - shift, 12),
                Breakdown("action_set", "fantom", 0.5 - shift, None, 40, 0.35 - shift, 0.65 - shift, 8),
                Breakdown("interesting", "true", 0.4 - shift, None, 50, 0.27 - shift, 0.54 - shift, 10),
                Breakdown("interesting", "false", 0.8 - shift, None, 50, 0.67 - shift, 0.89 - shift, 10),
                Breakdown("order", "2", 0.33 - shift, None, 30)]  # no interval: a bar without an error bar

    rows = [replace(row("org/big-70b", 0.91, 0.02), breakdowns=groups(0.0)),
            replace(row("org/<b>tiny</b>", 0.3, 0.05, provider="custom"), breakdowns=groups(0.2)),
            row("tombench/recency", 0.45, provider="tombench", open_weights=None, model_size_b=None),
            row("no-interval", 0.2, ci_low=None, ci_high=None, ci_method=None),
            row("z", 0.4, task="tombench/tomsynth")]
    page = render(rows, "html")
    assert "<script src" not in page and page.count("<script>") == 1 + 2 + 1  # plotly.js, two charts, the board's
    path = tmp_path / "charts.html"
    path.write_text(page, encoding="utf-8")
    driver.set_window_size(1400, 1000)
    driver.get(path.as_uri())
    checked = 0
    for board in (0, 1):
        chart = driver.find_element(By.ID, f"chart-{board}")
        traces = chart_traces(driver, chart)
        cells = _page_cells(driver, board)
        panels = {t["meta"]["panel"] for t in traces}
        assert panels == ({"headline", "action_set", "interesting", "order"} if board == 0
                          else {"headline", "action_set", "order"})
        checked += check_traces_match_cells(traces, cells)
        legend = [el.get_attribute("textContent") for el in chart.find_elements(By.CSS_SELECTOR, ".legendtext")]
        assert legend == [c["Model"] for c in cells]  # one legend entry per row, names as typed
    assert checked == (4 + 2 * 5 + 2 * 2) + (1 + 2)  # every headline, every group a row reports
    assert not driver.find_elements(By.CSS_SELECTOR, "b, img")  # no name became markup
    sizes = {r["Model"]: (r["Open"], r["Size"]) for r in _page_cells(driver, 0)}
    assert sizes["tombench/recency"] == ("", "")  # a baseline has no weights: blank, not "yes" / "0"
