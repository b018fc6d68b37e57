"""The built site loads nothing from the network: no script, stylesheet, image or font on a
non-local host, in any page or stylesheet. Plain hyperlinks (<a href>) in prose and citations are
allowed: following one is the reader's choice, and the page works without it."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}

# The attributes through which a page fetches something while it loads.
FETCHING_ATTRIBUTES = {
    "script": ("src",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "iframe": ("src",),
    "embed": ("src",),
    "object": ("data",),
}
# url(...) and @import in CSS (stylesheets, <style> blocks, style="" attributes): fonts live here.
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")


def is_remote(url: str) -> bool:
    """True for an absolute or protocol-relative URL whose host is not this machine."""
    parts = urlsplit(url.strip())
    if parts.scheme not in {"http", "https", ""} or not parts.netloc:
        return False
    return parts.hostname not in LOCAL_HOSTS


def remote_css_urls(css: str) -> list[str]:
    urls = [url for match in CSS_URL.finditer(css) for url in match.groups() if url]
    return [url for url in urls if is_remote(url)]


class RemoteReferences(HTMLParser):
    """Collects '<tag attr=url>' for every fetching reference of a page to a non-local host."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_style = tag == "style"
        for name, value in attrs:
            if not value:
                continue
            if name in FETCHING_ATTRIBUTES.get(tag, ()):
                # srcset holds "url size, url size"
                urls = [item.split()[0] for item in value.split(",") if item.split()]
                self.found += [f"<{tag} {name}={url}>" for url in urls if is_remote(url)]
            elif name == "style":
                self.found += [f"<{tag} style=url({url})>" for url in remote_css_urls(value)]

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.found += [f"<style> url({url})" for url in remote_css_urls(data)]

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False


def remote_references(html: str) -> list[str]:
    parser = RemoteReferences()
    parser.feed(html)
    parser.close()
    return parser.found


def test_scanner_flags_fetches_and_allows_hyperlinks():
    page = """
    <link rel="stylesheet" href="https://cdn.example.org/theme.css">
    <script src="//cdn.example.org/x.js"></script><script src="_static/local.js"></script>
    <img srcset="a.png 1x, https://img.example.org/b.png 2x">
    <style>@font-face { src: url('https://fonts.example.org/f.woff2'); }</style>
    <div style="background: url(http://127.0.0.1:8000/ok.png)"></div>
    <a href="https://doi.org/10.1162/neco.1997.9.8.1735">Hochreiter</a>
    """
    assert remote_references(page) == [
        "<link href=https://cdn.example.org/theme.css>",
        "<script src=//cdn.example.org/x.js>",
        "<img srcset=https://img.example.org/b.png>",
        "<style> url(https://fonts.example.org/f.woff2)",
    ]


def test_no_page_fetches_from_a_remote_host(site: Path, site_pages: list[Path]):
    assert site_pages, f"no HTML pages under {site}"
    problems = [
        f"{page.relative_to(site)}: {reference}"
        for page in site_pages
        for reference in remote_references(page.read_text(encoding="utf-8"))
    ]
    assert not problems, "pages load from remote hosts:\n" + "\n".join(problems)


def test_no_stylesheet_fetches_from_a_remote_host(site: Path):
    stylesheets = sorted(site.rglob("*.css"))
    assert stylesheets, f"no stylesheets under {site}"
    problems = [
        f"{sheet.relative_to(site)}: url({url})"
        for sheet in stylesheets
        for url in remote_css_urls(sheet.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not problems, "stylesheets load from remote hosts:\n" + "\n".join(problems)


def test_math_and_widgets_come_from_the_site(site: Path):
    # The vendored files that config points pages at (book/_config.yml) exist in the build.
    for asset in (
        "vendor/mathjax/tex-chtml.js",
        "vendor/mathjax/mathjax-hub-shim.js",
        "vendor/mathjax/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff",
        "vendor/requirejs/require.js",
        "vendor/html-manager/embed-amd.js",
    ):
        assert (site / asset).is_file(), f"{asset} missing from the site: run `make book`"


def test_every_vendored_package_ships_its_licence(site: Path):
    """scripts/vendor_web_assets.py copies each package's licence next to its files."""
    for asset in ("vendor/mathjax/LICENSE", "vendor/requirejs/LICENSE",
                  "vendor/html-manager/LICENSE", "vendor/LICENSES.txt"):
        assert (site / asset).is_file(), f"{asset} missing from the site: run `make book`"
