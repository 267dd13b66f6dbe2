"""The site's PNG icons (the manifest's, the apple-touch-icon and the notifications' badge),
drawn by Chromium from the SVG drawings beside them in frontend/static/frontend/icons/.

    .venv/bin/python scripts/make_icons.py    rewrite the PNGs (after changing a drawing)

The PNGs are committed: the site serves them as static files and nothing draws them at run time.
Uses Playwright and Debian's Chromium, as the browser tests do ($CHROMIUM, /usr/bin/chromium).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parent.parent / "frontend" / "static" / "frontend" / "icons"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# PNG -> (the drawing, its width and height in pixels).
PNGS = {
    "icon-192.png": ("icon.svg", 192),
    "icon-512.png": ("icon.svg", 512),
    "maskable-512.png": ("maskable.svg", 512),
    # iOS puts the icon on black where it is transparent: the opaque (maskable) drawing.
    "apple-touch-icon.png": ("maskable.svg", 180),
    "badge-96.png": ("badge.svg", 96),
}


def main() -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        for png, (drawing, size) in PNGS.items():
            data = base64.b64encode((ICONS / drawing).read_bytes()).decode()
            page.set_viewport_size({"width": size, "height": size})
            page.set_content(
                '<body style="margin:0">'
                f'<img src="data:image/svg+xml;base64,{data}" width="{size}" height="{size}"'
                ' style="display:block"></body>'
            )
            page.locator("img").screenshot(path=ICONS / png, omit_background=True)
            print(f"{png}: {drawing} at {size}x{size}")
        browser.close()


if __name__ == "__main__":
    main()
