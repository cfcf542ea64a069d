# Python Playwright through an errand's DevTools URL, as a user of it would (test/clients/downloads.test.ts):
# connect_over_cdp, open the site, click the download link, save_as where asked; print what it got as JSON.
# Arguments: the DevTools URL, the site's origin, the path to save to.
import json
import sys

from playwright.sync_api import sync_playwright

url, origin, path = sys.argv[1], sys.argv[2], sys.argv[3]
with sync_playwright() as p:
    browser = p.chromium.connect_over_cdp(url)
    try:
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(origin + "/")
        with page.expect_download() as info:
            page.click("#dl")
        download = info.value
        download.save_as(path)
        print(json.dumps({"name": download.suggested_filename, "failure": download.failure()}))
    finally:
        browser.close()
