"""Reading the Space's page in the headless Chromium (selenium): shared by the in-process app (test_space.py) and the
app served from a fresh virtual environment (test_space_install.py). selenium is imported inside, so importing this
module needs nothing the browser tests skip without."""

from __future__ import annotations


def wait_for(driver, check, seconds: float = 30):  # noqa: ANN001, ANN201
    """The first truthy value of `check(driver)` within `seconds` (selenium's TimeoutException otherwise)."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(lambda d: check(d) or None)


def shown_table(driver) -> tuple[list[str], list[list[str]]] | None:  # noqa: ANN001
    """(headers, rows of cell text) of the board in the tab shown, once it has rows (None while it re-renders)."""
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        return _read_table(driver)
    except StaleElementReferenceException:
        return None


def shown_board(driver):  # noqa: ANN001, ANN201
    """The board (Gradio's Dataframe block) of the tab shown."""
    from selenium.webdriver.common.by import By

    return next(b for b in driver.find_elements(By.CSS_SELECTOR, ".board") if b.is_displayed())


def _read_table(driver) -> tuple[list[str], list[list[str]]] | None:  # noqa: ANN001
    from selenium.webdriver.common.by import By

    boards = [b for b in driver.find_elements(By.CSS_SELECTOR, ".board") if b.is_displayed()]
    if len(boards) != 1:
        return None
    heads = [h.get_attribute("title") for h in boards[0].find_elements(By.CSS_SELECTOR, "th[role=columnheader]")]
    rows = [[c.text for c in r.find_elements(By.CSS_SELECTOR, "[role=gridcell]")]
            for r in boards[0].find_elements(By.CSS_SELECTOR, "[role=row].virtual-row")]
    return (heads, rows) if rows and all(rows) else None


def open_tab(driver, title: str) -> tuple[list[str], list[list[str]]]:  # noqa: ANN001
    """Click the tab `title` and return its board once it is drawn."""
    from selenium.webdriver.common.by import By

    tab = wait_for(driver, lambda d: next((t for t in d.find_elements(By.CSS_SELECTOR, "[role=tab]")
                                           if t.text == title), None))
    tab.click()
    return wait_for(driver, lambda d: (t := shown_table(d)) and t[0][-1] != "" and t)
