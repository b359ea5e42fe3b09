"""The hall's pages in a headless browser: a test driver (tests/test_hall_page*.py,
tests/test_projector.py, tests/test_results_desk.py, make bench's page
figures), kept out of the hall's product code (issue 35)."""
import os
import shutil

from hall import tls as TLS

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync")


def browser_tools():
    """(chromium, chromedriver) paths, or None where missing."""
    return (shutil.which("chromium") or _file("/usr/bin/chromium"),
            shutil.which("chromedriver") or _file("/usr/bin/chromedriver"))


def _file(p):
    return p if os.path.exists(p) else None


def headless_chromium(profile_dir, hall_folder=None):
    """Debian's chromium through chromium-driver (selenium), with a new empty
    profile in profile_dir; trusting the broker key of the hall in
    `hall_folder` (the pages are HTTPS, the hall's own certificate), as a
    director's browser does once the hall's CA is imported."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    chromium, driver = browser_tools()
    if not chromium or not driver:
        raise RuntimeError("chromium / chromium-driver not installed (make tools-os)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    flags = CHROMIUM_FLAGS + ("--user-data-dir=" + profile_dir,)
    if hall_folder is not None:
        flags += ("--ignore-certificate-errors-spki-list=" + TLS.spki_hash(hall_folder),)
    for f in flags:
        opts.add_argument(f)
    return webdriver.Chrome(service=Service(driver), options=opts)
