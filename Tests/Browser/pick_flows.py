#!/usr/bin/python3
"""Drives forecastctl pick's page in a real browser: headless Chromium through Selenium, Debian's chromium,
chromium-driver and python3-selenium (scripts/deps --browser).

    pick_flows.py FLOW URL [--screenshot-dir DIR] [--tiles-log FILE] [--query TEXT]

URL is the address `forecastctl pick --no-open` printed. Tests/EndToEndTests/PickBrowserTests.swift starts
forecastctl (and a daemon, and a tile server when the flow has tiles), runs one flow, and checks what the
choice did to the settings file, forecastctl's exit code and output, and the daemon's report. This script
does what a person does on the page, checks what the page shows, and prints one JSON object: what the
Swift test needs to check the rest (the coordinate marked, the texts shown). It exits 1 with a message when
the page does not behave.

Flows:
  search-pin   type a place name, search, see the place marked and named, "Pin here"
  click-city   click a position on the map, see the nearest place, tick "as a favourite", "Add to my cities"
  cancel       read the buttons' words (the page's language), "Cancel"
  offline      tiles unreachable: the notice, the gazetteer's dots and labels, the graticule; a search still
               moves the map and names the place; then "Cancel"
  refused      a wrong token and a foreign host name (DNS rebinding, mapped in the browser's resolver) get
               403; another origin's page posting a choice gets 403; then the real page cancels
  keyboard     Tab to the search, type, Enter, arrows move the map, Enter marks the centre, P pins

The browser reaches nothing but 127.0.0.1: every other host name resolves to nothing (--host-resolver-rules).
"""

import argparse
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = os.environ.get("FORECASTD_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("FORECASTD_CHROMEDRIVER", "/usr/bin/chromedriver")
WAIT = 20


class FlowFailure(Exception):
    pass


def start_browser(resolver_rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in [
        "--headless=new",
        "--no-sandbox",  # the tests run as root, where Chromium's sandbox cannot start
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1100,720",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--lang=en-US",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-domain-reliability",
        "--disable-extensions",
        "--metrics-recording-only",
        "--host-resolver-rules=" + resolver_rules,
    ]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def wait_for(driver, condition, what, timeout=WAIT):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(d))
    except TimeoutException:
        raise FlowFailure("timed out waiting for " + what + "; the page says: " + page_text(driver)) from None


def page_text(driver):
    try:
        return driver.find_element(By.TAG_NAME, "body").text.replace("\n", " | ")[:600]
    except Exception:  # noqa: BLE001 - only for the message
        return "(no page)"


def by_id(driver, name):
    return driver.find_element(By.ID, name)


def open_page(driver, url, tiles):
    driver.get(url)
    wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the page to start")
    if tiles:
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.tiles") == "online", "the tiles")


def selection(driver):
    """The marked place's text and its coordinate, read at once (the page rewrites them as it learns the name)."""
    text, coordinate = driver.execute_script(
        "const e = document.getElementById('selection'), c = e.querySelector('.coordinate');"
        "return [e.innerText, c ? c.textContent : ''];"
    )
    return text, coordinate


def wait_selection(driver, expected):
    return wait_for(
        driver, lambda d: selection(d)[1] and expected in selection(d)[0] and selection(d), "the selection to name " + expected
    )


def wait_done(driver):
    wait_for(driver, lambda d: "done" in by_id(d, "outcome").get_attribute("class"), "the page to say the choice is done")
    return by_id(driver, "outcome").text


def screenshot(driver, directory, name):
    if directory:
        driver.save_screenshot(os.path.join(directory, name))


def severe_console_messages(driver):
    """Errors the page's own scripts logged (CSP violations included), not the tiles' failures."""
    messages = []
    for entry in driver.get_log("browser"):
        text = entry.get("message", "")
        if entry.get("level") == "SEVERE" and "Failed to load resource" not in text and "favicon" not in text:
            messages.append(text)
    return messages


def labels(driver):
    """The place names written beside the largest dots, read at once (the dots are redrawn as the map moves)."""
    return driver.execute_script("return Array.from(document.querySelectorAll('.place-label')).map(e => e.textContent)")


def count(driver, selector):
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length", selector)


def search(driver, text):
    query = by_id(driver, "query")
    query.clear()
    query.send_keys(text)
    by_id(driver, "search-button").click()


# MARK: Flows


def flow_search_pin(driver, url, args):
    open_page(driver, url, tiles=True)
    search(driver, args.query or "Paris, TX")
    name, coordinate = wait_selection(driver, "Paris, Texas, US")
    by_id(driver, "pin").click()
    outcome = wait_done(driver)
    return {"selection": name, "coordinate": coordinate, "outcome": outcome}


def flow_click_city(driver, url, args):
    open_page(driver, url, tiles=True)
    map_element = by_id(driver, "map")
    # A point left of and above the map's centre.
    ActionChains(driver).move_to_element_with_offset(map_element, -120, -80).click().perform()
    name, coordinate = wait_selection(driver, "Nearest place: ")
    by_id(driver, "favorite").click()
    by_id(driver, "city").click()
    outcome = wait_done(driver)
    return {"selection": name, "coordinate": coordinate, "outcome": outcome}


def flow_cancel(driver, url, args):
    open_page(driver, url, tiles=True)
    words = {name: by_id(driver, name).text for name in ["pin", "city", "cancel", "search-button", "search-label"]}
    language = driver.execute_script("return document.documentElement.lang")
    by_id(driver, "cancel").click()
    outcome = wait_done(driver)
    return {"words": words, "language": language, "outcome": outcome}


def flow_offline(driver, url, args):
    open_page(driver, url, tiles=False)
    wait_for(driver, lambda d: d.execute_script("return document.body.dataset.tiles") == "offline", "the offline map")
    notice = by_id(driver, "offline")
    wait_for(driver, lambda d: notice.is_displayed(), "the offline notice")
    wait_for(driver, lambda d: count(d, "path.place-dot") > 20, "the gazetteer's dots")
    wait_for(driver, lambda d: count(d, "path.graticule") > 4, "the graticule")
    labels_before = labels(driver)
    dots_before = count(driver, "path.place-dot")
    search(driver, args.query or "Bergen, Norway")
    name, coordinate = wait_selection(driver, "Bergen, Vestland, NO")
    # The dots follow the map to Bergen.
    wait_for(driver, lambda d: any("Bergen" in label for label in labels(d)), "Bergen's label among the dots")
    labels_after = labels(driver)
    dots_after = count(driver, "path.place-dot")
    # A dot is a place to click: the marker moves there and is named at once.
    screenshot(driver, args.screenshot_dir, "offline.png")
    by_id(driver, "cancel").click()
    outcome = wait_done(driver)
    return {
        "notice": notice.text,
        "labels_before": labels_before,
        "labels_after": labels_after,
        "dots_before": dots_before,
        "dots_after": dots_after,
        "selection": name,
        "coordinate": coordinate,
        "outcome": outcome,
    }


class AttackerPage(http.server.BaseHTTPRequestHandler):
    """Another site's page (another port of 127.0.0.1) that posts a choice to the picker."""

    picker = ""

    def do_GET(self):  # noqa: N802 - http.server's name
        script = (
            "fetch(%s, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, "
            "body: JSON.stringify({action: 'pin', latitude: 1.5, longitude: 1.5})})"
            ".finally(() => { document.title = 'sent'; });" % json.dumps(self.picker + "api/choose")
        )
        body = ("<!doctype html><title>attacker</title><script>%s</script>" % script).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def statuses_of(driver, fragment):
    """The HTTP statuses the browser received for requests to URLs containing `fragment` (DevTools' network
    log). A response the page may not read (another origin's, blocked by its Cross-Origin-Resource-Policy)
    has its status only in the extra-info event."""
    messages = [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]
    ids = {
        message["params"]["requestId"]
        for message in messages
        if message.get("method") == "Network.requestWillBeSent" and fragment in message["params"]["request"]["url"]
    }
    statuses = {}
    for message in messages:
        params = message.get("params", {})
        if params.get("requestId") not in ids:
            continue
        if message.get("method") == "Network.responseReceived":
            statuses[params["requestId"]] = params["response"]["status"]
        elif message.get("method") == "Network.responseReceivedExtraInfo":
            statuses.setdefault(params["requestId"], params["statusCode"])
    return sorted(statuses.values())


def flow_refused(driver, url, args):
    parts = urllib.parse.urlsplit(url)
    token = parts.path.strip("/")
    wrong = "%s://%s/%s/" % (parts.scheme, parts.netloc, "0" * len(token))
    driver.get(wrong)
    wrong_token_text = page_text(driver)
    rebinding = "http://evil.test:%d/%s/" % (parts.port, token)
    driver.get(rebinding)
    rebinding_text = page_text(driver)
    driver.get_log("performance")

    AttackerPage.picker = url
    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", 0), AttackerPage)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    try:
        driver.get("http://127.0.0.1:%d/" % attacker.server_address[1])
        wait_for(driver, lambda d: d.title == "sent", "the other site's page to post its choice")
        foreign_statuses = statuses_of(driver, "/api/choose")
    finally:
        attacker.shutdown()

    open_page(driver, url, tiles=True)
    by_id(driver, "cancel").click()
    outcome = wait_done(driver)
    return {
        "wrong_token": wrong_token_text,
        "rebinding": rebinding_text,
        "foreign_statuses": foreign_statuses,
        "outcome": outcome,
    }


def flow_keyboard(driver, url, args):
    open_page(driver, url, tiles=False)
    # As the page opens: nothing has the keyboard yet.
    driver.execute_script("if (document.activeElement) document.activeElement.blur()")
    ActionChains(driver).send_keys(Keys.TAB).perform()
    first = driver.switch_to.active_element.get_attribute("id")
    if first != "query":
        raise FlowFailure("Tab reached %r, not the search" % first)
    ActionChains(driver).send_keys(args.query or "Paris, TX").send_keys(Keys.ENTER).perform()
    found_name, found = wait_selection(driver, "Paris, Texas, US")
    focused = driver.switch_to.active_element.get_attribute("id")
    if focused != "map":
        raise FlowFailure("after the search the keyboard is on %r, not the map" % focused)
    # One key at a time: Leaflet ignores an arrow while the pan of the one before is still moving.
    for key in [Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_DOWN]:
        ActionChains(driver).send_keys(key).perform()
        time.sleep(0.5)
    # Enter marks the map's centre, moved by the arrows: pressed until the centre is still (Leaflet animates
    # each step of a pan) and no longer the place found.
    previous = None
    for _ in range(100):
        time.sleep(0.1)
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        name, centre = selection(driver)
        if centre and centre != found and centre == previous:
            break
        previous = centre
    else:
        raise FlowFailure("the arrows did not move the map to rest (the centre is %s, the place %s)" % (previous, found))
    name, centre = wait_selection(driver, "Nearest place: ")
    ActionChains(driver).send_keys("p").perform()
    outcome = wait_done(driver)
    screenshot(driver, args.screenshot_dir, "pinned.png")
    return {"found": found, "selection": name, "coordinate": centre, "outcome": outcome}


FLOWS = {
    "search-pin": flow_search_pin,
    "click-city": flow_click_city,
    "cancel": flow_cancel,
    "offline": flow_offline,
    "refused": flow_refused,
    "keyboard": flow_keyboard,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("flow", choices=sorted(FLOWS))
    parser.add_argument("url")
    parser.add_argument("--screenshot-dir")
    parser.add_argument("--query")
    args = parser.parse_args()
    rules = "MAP evil.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
    started = time.monotonic()
    driver = start_browser(rules)
    try:
        result = FLOWS[args.flow](driver, args.url, args)
        result["console_errors"] = severe_console_messages(driver)
    except FlowFailure as failure:
        print("pick_flows.py %s: %s" % (args.flow, failure), file=sys.stderr)
        sys.exit(1)
    finally:
        driver.quit()
    result["seconds"] = round(time.monotonic() - started, 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
