"""End to end in a real headless browser (Debian's chromium and chromium-driver, selenium).

An examiner creates the voice case through the form, runs it, downloads the PDF (its text
checked with pypdf), submits it; a reviewer approves it; the teaching view's slider is
moved and the LR shown is checked against ``forensic-lr calibrate --json`` at the same
score. Every page is saved as a PNG (``FORENSIC_LR_SCREENSHOTS`` names a folder to keep
them; else the test's temporary folder). Skipped when chromium or its driver is missing
(``.ci/run`` installs both).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import threading
import time
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("selenium")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("chromium and chromium-driver are not installed", allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from forensic_lr.cli import main  # noqa: E402
from forensic_lr.web.app import ServerConfig, create_app  # noqa: E402
from forensic_lr.web.register import Register  # noqa: E402

from .conftest import EXAMPLES, TOKEN  # noqa: E402

PASSWORD = "a password for tests"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real server (uvicorn in a thread) on a fresh cases folder with two users."""
    import uvicorn

    cases = tmp_path_factory.mktemp("browser") / "cases"
    cases.mkdir()
    reg = Register(cases)
    reg.add_user("eve", "examiner", PASSWORD, by="test")
    reg.add_user("rob", "reviewer", PASSWORD, by="test")
    port = _free_port()
    app = create_app(ServerConfig(cases=cases, token=TOKEN))
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", cases
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser(shots):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1280,1700", "--disable-gpu"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    # the last page as the test left it: where a failure stopped, when it did
    driver.save_screenshot(str(shots / "last-page.png"))
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("FORENSIC_LR_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("shots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _shot(driver, shots: Path, name: str) -> None:
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(max(height, 900), 4000))
    assert driver.save_screenshot(str(shots / f"{name}.png"))
    driver.set_window_size(1280, 1700)


def _login(driver, base: str, name: str) -> None:
    driver.delete_all_cookies()
    driver.get(f"{base}/login")
    driver.find_element(By.NAME, "name").send_keys(name)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form.narrow button").click()
    WebDriverWait(driver, 60).until(ec.url_to_be(f"{base}/"))


def _fill(driver, name: str, value: str) -> None:
    element = driver.find_element(By.NAME, name)
    if element.tag_name == "select":
        Select(element).select_by_value(value)
    else:
        element.clear()
        element.send_keys(value)


def _voice_form() -> dict[str, str]:
    """The voice example's case file as the form's fields."""
    case = tomllib.loads((EXAMPLES / "voice" / "case.toml").read_text(encoding="utf-8"))
    values = {}
    for section in ("case", "propositions", "evidence", "background", "system", "method",
                    "uncertainty", "validation"):
        for key, value in case.get(section, {}).items():
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                values[f"{section}.{key}"] = str(value)
    values["case.date"] = case["case"]["date"].isoformat()
    values["case.items"] = "\n".join(
        " | ".join(item[k] for k in ("id", "description", "seal", "condition", "received",
                                     "examined")) for item in case["case"]["items"])
    values["validation.criteria.cllr_max"] = str(case["validation"]["criteria"]["cllr_max"])
    return values


def test_examiner_reviewer_and_lecturer(server, browser, shots, tmp_path, capsys):
    base, cases = server
    driver = browser
    driver.get(f"{base}/login")
    _shot(driver, shots, "01-login")

    # ---- the examiner: a case through the form, with per-field errors first
    _login(driver, base, "eve")
    _shot(driver, shots, "02-cases-empty")
    driver.get(f"{base}/cases/new")
    _fill(driver, "case.id", "FVC-2026-017")
    _fill(driver, "evidence.score", "five")
    driver.find_element(By.ID, "create").click()
    errors = WebDriverWait(driver, 60).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".field.invalid .field-error"))
    assert any("not a number" in e.text for e in errors)
    _shot(driver, shots, "03-new-case-errors")
    driver.get(f"{base}/cases/new")
    form = _voice_form()
    fields = {e.get_attribute("name") for e in driver.find_elements(
        By.CSS_SELECTOR, ".case-form [name]")}
    for name, value in form.items():
        if name in fields and name not in ("method.elub", "background.ss", "background.ds"):
            _fill(driver, name, value)
    _fill(driver, "report.language", "es")  # the court reads Spanish
    for key in ("ss", "ds"):
        driver.find_element(By.NAME, f"background.{key}").send_keys(
            str(EXAMPLES / "voice" / f"{key}.csv"))
    _shot(driver, shots, "04-new-case-form")
    driver.find_element(By.ID, "create").click()
    WebDriverWait(driver, 60).until(ec.url_contains("/cases/FVC-2026-017"))

    # ---- run it; the page shows progress and reloads with the result
    driver.find_element(By.ID, "run-final").click()
    WebDriverWait(driver, 240, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "td.lr"))
    assert driver.find_element(By.CSS_SELECTOR, "td.lr").text == "280"
    _shot(driver, shots, "05-result")

    # ---- the PDF behind the download button, with the browser's session
    import httpx
    from pypdf import PdfReader

    href = driver.find_element(By.ID, "dl-pdf").get_attribute("href")
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    pdf = httpx.get(href, cookies=cookies).content
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "FVC-2026-017" in text and "280" in text
    assert "Informe evaluativo" in text and "Evaluative report" not in text

    driver.find_element(By.ID, "submit").click()
    WebDriverWait(driver, 60, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: "submitted" in d.find_element(By.CSS_SELECTOR, "h1 .status").text)
    driver.get(f"{base}/")
    _shot(driver, shots, "06-cases")

    # ---- the reviewer approves
    _login(driver, base, "rob")
    driver.get(f"{base}/cases/FVC-2026-017")
    driver.find_element(By.ID, "review-comment").send_keys("Checked against the lab's SOP.")
    _shot(driver, shots, "07-review")
    driver.find_element(By.ID, "approve").click()
    WebDriverWait(driver, 60, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: "reviewed" in d.find_element(By.CSS_SELECTOR, "h1 .status").text)
    entries = Register(cases).audit("FVC-2026-017")
    approved = [e for e in entries if e["action"] == "review: approved"]
    assert approved and approved[0]["user"] == "rob"
    assert approved[0]["details"]["comment"] == "Checked against the lab's SOP."

    # ---- the lecturer: the textbook preset, then the slider
    driver.get(f"{base}/teaching")
    WebDriverWait(driver, 60).until(
        lambda d: d.find_element(By.ID, "lr").text not in ("", "-"))
    assert driver.find_element(By.ID, "lr").text == "2.3"  # 0.35 / 0.15
    driver.execute_script(
        "var s = document.getElementById('score'); s.value = 6.5;"
        "s.dispatchEvent(new Event('input'));")
    WebDriverWait(driver, 60).until(
        lambda d: d.find_element(By.ID, "score-value").text == "6.500"
        and d.find_element(By.ID, "timing").text != "-")
    time.sleep(0.5)
    shown = driver.find_element(By.ID, "log10").text
    _shot(driver, shots, "08-teaching")
    from forensic_lr.web.teaching import textbook_background

    ss, ds, _ = textbook_background()
    (tmp_path / "ss.csv").write_text("\n".join(map(repr, ss.tolist())) + "\n")
    (tmp_path / "ds.csv").write_text("\n".join(map(repr, ds.tolist())) + "\n")
    capsys.readouterr()
    assert main(["calibrate", "--ss", str(tmp_path / "ss.csv"), "--ds",
                 str(tmp_path / "ds.csv"), "--method", "gaussian", "--score", "6.5",
                 "--interval", "none", "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)["results"][0]
    assert float(shown) == pytest.approx(expected["log10_lr"], abs=0.005)  # printed to 2 dp

    driver.get(f"{base}/docs")  # the API page, also at /api
    assert "retention_years" in driver.page_source
    _shot(driver, shots, "09-api")
