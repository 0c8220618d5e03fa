#!/usr/bin/python3
"""Looks at the web remote's page in headless Chromium (Debian's chromium + chromium-driver,
python3-selenium) as a listener whose browser speaks LANG, at 1280x800 and 390x844.

  argv: URL EXPECTED_TITLE ARTEFACT_DIR LANG
  stdout  one JSON object per size: the cover image's natural size, the page's tint (--accent),
          the document's language, a few labels and the first history line; then "done".
          Screenshots web-remote-look-WxH.png go to ARTEFACT_DIR.
  stdout  "fail REASON" on any failure (then exit 1)
"""
import json
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main():
    url, expected, artefacts, lang = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    os.makedirs(artefacts, exist_ok=True)
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--no-first-run", "--disable-extensions", "--lang=" + lang]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(url)
        WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "title").text == expected)
        for width, height in [(1280, 800), (390, 844)]:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
            WebDriverWait(driver, 5).until(lambda d: d.execute_script("return window.innerWidth") == width)
            WebDriverWait(driver, 20).until(lambda d: d.execute_script(
                "const i = document.querySelector('#cover img'); return !!i && i.complete && i.naturalWidth > 0"))
            WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#history li"))
            look = driver.execute_script("""
                const img = document.querySelector('#cover img');
                const rect = img.getBoundingClientRect();
                // How many colours a 16x16 grid of the picture has: 1 for a flat square.
                const canvas = document.createElement('canvas');
                canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
                const context = canvas.getContext('2d');
                context.drawImage(img, 0, 0);
                const colours = new Set();
                for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) {
                  const p = context.getImageData(Math.floor((x + .5) * canvas.width / 16), Math.floor((y + .5) * canvas.height / 16), 1, 1).data;
                  colours.add(p[0] + ',' + p[1] + ',' + p[2]);
                }
                return {
                  width: innerWidth,
                  natural: [img.naturalWidth, img.naturalHeight],
                  colours: colours.size,
                  shown: [Math.round(rect.width), Math.round(rect.height)],
                  accent: getComputedStyle(document.body).getPropertyValue('--accent').trim(),
                  lang: document.documentElement.lang,
                  navigator: navigator.language,
                  cover_label: document.getElementById('cover').getAttribute('aria-label'),
                  playpause: document.getElementById('playpause').textContent,
                  sleep_heading: document.getElementById('sleep-heading').textContent,
                  history_heading: document.getElementById('history-heading').textContent,
                  history: document.querySelector('#history li').textContent,
                  scroll_width: document.documentElement.scrollWidth,
                };""")
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(os.path.join(artefacts, "web-remote-look-%dx%d.png" % (width, height)))
            print(json.dumps(look, ensure_ascii=False), flush=True)
        print("done", flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # the test reads this line; a traceback alone would be lost in a pipe
        print("fail %s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else ""), flush=True)
        sys.exit(1)
