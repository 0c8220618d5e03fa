#!/usr/bin/python3
"""Drives the web remote's page in headless Chromium (Debian's chromium + chromium-driver,
python3-selenium). Talks to the Swift test one line at a time:

  argv: URL EXPECTED_TITLE ARTEFACT_DIR
  stdout  "title-shown"               the page shows EXPECTED_TITLE
  stdin   "expect TITLE"              the test changed the ICY title
  stdout  "title-updated MS"          the page shows it, MS after the line arrived
  stdout  "pause-clicked"             the Play/Pause button was pressed
  stdout  "sleep-clicked"             the page listed the station and its "30 min" sleep button was pressed
  stdin   "continue"                  the sleep timer and the artwork are on the bus by now
  stdout  "play-clicked"              the page shows the countdown and the cover; Play was pressed
  stdout  "screenshots N"             N screenshots written to ARTEFACT_DIR
  stdout  "station-clicked"           the station list's second button was pressed
  stdin   "expect TITLE"              the new station's title, which the page then shows
  stdout  "fail REASON"               on any failure (then exit 1)
"""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def say(line):
    print(line, flush=True)


def main():
    url, expected, artefacts = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(artefacts, exist_ok=True)
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=360,740", "--no-first-run", "--disable-extensions"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        def viewport(width, height):
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})

        def title():
            return driver.find_element(By.ID, "title").text

        viewport(360, 740)
        driver.get(url)
        WebDriverWait(driver, 15).until(lambda d: title() == expected)
        say("title-shown")

        # Accessibility basics: every control has a name, every field a label, and Tab reaches the controls in order.
        unnamed = driver.execute_script("""
            return [...document.querySelectorAll('button, input')].filter(e => {
              if (e.tagName === 'BUTTON') return !(e.textContent.trim() || e.getAttribute('aria-label'));
              return !(e.labels && e.labels.length);
            }).map(e => e.outerHTML);""")
        if unnamed:
            raise AssertionError("controls without a name or label: %s" % unnamed)
        wide = driver.execute_script("return document.documentElement.scrollWidth")
        if wide > 360:
            raise AssertionError("the page is %d px wide at 360 px: it scrolls sideways" % wide)

        command = sys.stdin.readline().strip()
        if not command.startswith("expect "):
            raise AssertionError("expected 'expect TITLE', got %r" % command)
        started = time.monotonic()
        new_title = command[len("expect "):]
        WebDriverWait(driver, 10, poll_frequency=0.02).until(lambda d: title() == new_title)
        say("title-updated %d" % ((time.monotonic() - started) * 1000))

        button = driver.find_element(By.ID, "playpause")
        if button.text != "Pause":
            raise AssertionError("while playing the button says %r" % button.text)
        button.click()
        say("pause-clicked")
        WebDriverWait(driver, 10).until(lambda d: driver.find_element(By.ID, "status").text == "Paused")
        WebDriverWait(driver, 10).until(lambda d: driver.find_element(By.ID, "playpause").text == "Play")
        # The station list comes from `oton ctl stations` (run by the plugin), the current one marked.
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            "return [...document.querySelectorAll('#stations button')].some("
            "b => b.textContent === '1. Test FM' && b.getAttribute('aria-current') === 'true')"))
        driver.find_element(By.CSS_SELECTOR, '#sleep-presets button[data-sleep="30m"]').click()
        say("sleep-clicked")
        if sys.stdin.readline().strip() != "continue":
            raise AssertionError("expected 'continue'")
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "sleep").text.startswith("Will stop in "))
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            "const i = document.querySelector('#cover img'); return !!i && i.complete && i.naturalWidth > 0"))
        driver.find_element(By.ID, "playpause").click()
        say("play-clicked")
        WebDriverWait(driver, 15).until(lambda d: d.find_element(By.ID, "status").text == "Playing")

        count = 0
        for width, height in [(360, 740), (1280, 800)]:
            viewport(width, height)
            driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
            WebDriverWait(driver, 5).until(lambda d: d.execute_script("return window.innerWidth") == width)
            driver.save_screenshot(os.path.join(artefacts, "web-remote-%dx%d.png" % (width, height)))
            count += 1
        say("screenshots %d" % count)

        # Switch stations from the list: the second one, then its title on the page.
        WebDriverWait(driver, 10).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#stations button")) >= 2)
        driver.find_elements(By.CSS_SELECTOR, "#stations button")[1].click()
        say("station-clicked")
        command = sys.stdin.readline().strip()
        if not command.startswith("expect "):
            raise AssertionError("expected 'expect TITLE', got %r" % command)
        WebDriverWait(driver, 20).until(lambda d: title() == command[len("expect "):])
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            "return [...document.querySelectorAll('#stations button')].some("
            "b => b.textContent.startsWith('2. ') && b.getAttribute('aria-current') === 'true')"))
        say("station-shown")
    finally:
        driver.quit()


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # the test reads this line; a traceback alone would be lost in a pipe
        say("fail %s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else ""))
        sys.exit(1)
