"""Reading a leaderboard chart in the headless Chromium (selenium): the traces Plotly drew, and the check that each
bar is the number of its table cell. Shared by the HTML page's tests (test_browser.py) and the Space's
(test_space.py)."""

from __future__ import annotations

from .space_page import wait_for


def chart_traces(driver, element) -> list[dict]:  # noqa: ANN001
    """The traces Plotly drew in `element` (a chart's div or a block holding one), once it has drawn its bars."""
    wait_for(driver, lambda d: d.execute_script(
        "var g = arguments[0].classList.contains('js-plotly-plot') ? arguments[0]"
        " : arguments[0].querySelector('.js-plotly-plot');"
        "return g && g.querySelectorAll('.bars path').length > 0", element))
    return driver.execute_script(
        "var g = arguments[0].classList.contains('js-plotly-plot') ? arguments[0]"
        " : arguments[0].querySelector('.js-plotly-plot');"
        "return g.data.map(t => ({meta: t.meta, name: t.name, x: t.x, y: t.y, text: t.customdata,"
        " plus: t.error_y.array, minus: t.error_y.arrayminus}));", element)


def check_traces_match_cells(traces: list[dict], cells: list[dict[str, str]]) -> int:
    """Each bar drawn equals its table cell: the hover text is the cell's text, the bar's height and the ends of
    its error bar are the numbers printed there (to the printed 0.1). Returns the number of bars checked."""
    import re

    checked = 0
    for t in traces:
        row = cells[t["meta"]["entry"]]
        for k, (x, y, text) in enumerate(zip(t["x"], t["y"], t["text"], strict=True)):
            if t["meta"]["panel"] == "headline":
                shown = f"{row['Accuracy %']} [{row['95% CI']}]"
            else:
                shown = row[f"{t['meta']['panel']}: {x}"]
            assert text == shown
            numbers = [float(v) for v in re.findall(r"\d+\.\d", shown)]
            assert f"{y:.1f}" == f"{numbers[0]:.1f}"
            if t["plus"][k] is None:
                assert len(numbers) == 1 or "no CI" in shown
            else:
                assert abs(y - t["minus"][k] - numbers[1]) <= 0.05 and abs(y + t["plus"][k] - numbers[2]) <= 0.05
            checked += 1
    return checked

