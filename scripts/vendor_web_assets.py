"""Vendor the JavaScript the book's pages load, so the built site works with no network at all.

By default Jupyter Book 1 pages load MathJax, RequireJS and the ipywidgets HTML manager from
CDNs; offline, a reader then sees raw TeX and no widgets. This script runs at `make book` time
(when the npm registry is reachable; nothing is fetched when the site is read):

1. `npm pack` each pinned package into book/_web_assets/npm/ (once: later builds reuse the
   tarball after checking its sha512 against the registry's integrity string pinned below);
2. unpack the files the pages use into book/_web_assets/site/vendor/<name>/, which
   book/_config.yml serves at the site root through `html_extra_path`;
3. copy each package's licence next to its files (vendor/<name>/LICENSE …: what
   `licence_members` picks from the tarball, or, for a package whose tarball ships none, the
   licence text of its repository kept in book/_offline/licences/), and list them all in
   vendor/LICENSES.txt;
4. copy our two small glue scripts from book/_offline/ next to the packages they serve.

Usage: python scripts/vendor_web_assets.py [--book book]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class NpmPackage:
    name: str  # npm package name
    version: str  # exact version: the site must not change under us
    integrity: str  # the registry's sha512 of the tarball (`npm view NAME@VERSION dist.integrity`)
    folder: str  # where it goes under site/vendor/
    root: str  # the package's folder we take ("" for its top), unpacked straight into `folder`
    keep: Callable[[PurePosixPath], bool] | None = None  # which files under `root` (None: all)
    licence: str = ""  # the SPDX licence its package.json declares
    # book/_offline/licences/<file>: the licence text of the package's repository, for a package
    # whose npm tarball ships no licence file of its own (None: the tarball has one)
    licence_text: str | None = None

    @property
    def tarball(self) -> str:
        """The file name `npm pack` gives: '@scope/name' -> 'scope-name-VERSION.tgz'."""
        return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"


def _html_manager_files(path: PurePosixPath) -> bool:
    # The RequireJS bundle and the Font Awesome fonts its CSS points at (next to the bundle).
    fonts = {".eot", ".svg", ".ttf", ".woff", ".woff2"}
    return path.name == "embed-amd.js" or path.suffix in fonts


def _requirejs_files(path: PurePosixPath) -> bool:
    return path.name == "require.js"


# ipywidgets==8.1.9 (requirements.txt) writes widget state that html-manager 1.0.x renders.
PACKAGES = (
    NpmPackage(
        "mathjax",
        "3.2.2",
        "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
        "mathjax",
        # All of es5/: tex-chtml.js, its woff fonts, and the extensions and accessibility
        # components MathJax loads on demand (from its own folder, so never from a CDN).
        "es5",
        licence="Apache-2.0",
    ),
    NpmPackage(
        "@jupyter-widgets/html-manager",
        "1.0.15",
        "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        "html-manager",
        "dist",
        _html_manager_files,
        licence="BSD-3-Clause",
        # The tarball has only dist/embed.js.LICENSE.txt (the licences of what its bundle
        # includes: jQuery, …); its own licence is the ipywidgets repository's LICENSE.
        licence_text="html-manager-LICENSE",
    ),
    NpmPackage(
        "requirejs",
        "2.3.8",
        "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
        "requirejs",
        "",
        _requirejs_files,
        licence="MIT",
        # The tarball has no licence file; require.js's header names the MIT licence.
        licence_text="requirejs-LICENSE",
    ),
)

# Our own glue scripts in book/_offline/ -> the vendor/ folder each goes to (see their comments).
GLUE = {"mathjax-hub-shim.js": "mathjax", "html-manager-paths.js": "html-manager"}
# What vendor/ is laid out as: a stamp of another format re-vendors (2: with the licences).
FORMAT = 2
# A licence file at a package's top: LICENSE, LICENCE, COPYING, NOTICE (any case, any suffix).
_LICENCE_FILE = re.compile(r"(licen[cs]e|copying|notice)([.\-_].*)?", re.IGNORECASE)


def sha512_integrity(path: Path) -> str:
    """The Subresource-Integrity string npm records for a tarball: 'sha512-' + base64(digest)."""
    digest = hashlib.sha512(path.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode()


def npm_pack(package: NpmPackage, cache: Path) -> Path:
    """Return the package's tarball from the cache, running `npm pack` only when it is missing."""
    tarball = cache / package.tarball
    if tarball.exists() and sha512_integrity(tarball) == package.integrity:
        return tarball
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "npm not found: the book vendors MathJax and the widget manager with `npm pack`. "
            "Install Node.js/npm (Debian: apt-get install npm) and run `make book` again."
        )
    cache.mkdir(parents=True, exist_ok=True)
    spec = f"{package.name}@{package.version}"
    print(f"npm pack {spec}", flush=True)
    subprocess.run(
        [npm, "pack", spec, "--pack-destination", str(cache), "--silent"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    found = sha512_integrity(tarball)
    if found != package.integrity:
        tarball.unlink()
        raise SystemExit(f"{spec}: tarball integrity {found} != pinned {package.integrity}")
    return tarball


def unpack(package: NpmPackage, tarball: Path, dest: Path) -> int:
    """Extract the kept files under package/<root>/ of `tarball` into `dest`; return the count."""
    if dest.exists():
        shutil.rmtree(dest)
    root = PurePosixPath("package", package.root)
    count = 0
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive.getmembers():
            path = PurePosixPath(member.name)
            if not member.isfile() or ".." in path.parts or not path.is_relative_to(root):
                continue
            inner = path.relative_to(root)
            if package.keep is not None and not package.keep(inner):
                continue
            target = dest.joinpath(*inner.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.extractfile(member).read())
            count += 1
    if count == 0:
        raise SystemExit(f"{package.name}: no files kept from {tarball.name}")
    return count


def licence_members(package: NpmPackage, names: Iterable[str]) -> dict[str, str]:
    """Which members of the package's tarball (``names``) are licence texts, and the name each
    gets next to the vendored files: a LICENSE / LICENCE / COPYING / NOTICE file at the package's
    top (``package/LICENSE`` → ``LICENSE``), and the ``*.LICENSE.txt`` notices a bundler writes
    beside a bundle under the vendored root (the licences of what the bundle includes)."""
    root = PurePosixPath("package", package.root)
    found = {}
    for name in names:
        path = PurePosixPath(name)
        if ".." in path.parts or path.parts[:1] != ("package",):
            continue
        if len(path.parts) == 2 and _LICENCE_FILE.fullmatch(path.name):
            found[name] = path.name
        elif path.name.endswith(".LICENSE.txt") and path.is_relative_to(root):
            found[name] = path.name
    return dict(sorted(found.items()))


def vendor_licences(package: NpmPackage, tarball: Path, dest: Path, texts: Path) -> list[str]:
    """Copy the package's licence files into ``dest`` (its vendored folder): those
    :func:`licence_members` picks from ``tarball``, and ``texts/<licence_text>`` as ``LICENSE``
    when the package names one (its tarball has no licence file at its top). Return the names
    written; SystemExit when a package would be vendored without its licence."""
    with tarfile.open(tarball, "r:gz") as archive:
        members = {m.name: m for m in archive.getmembers() if m.isfile()}
        picked = licence_members(package, members)
        written = []
        for name, target in picked.items():
            (dest / target).write_bytes(archive.extractfile(members[name]).read())
            written.append(target)
    if package.licence_text is not None:
        if "LICENSE" in written:
            raise SystemExit(f"{package.name}: its tarball has a LICENSE now; drop licence_text")
        shutil.copyfile(texts / package.licence_text, dest / "LICENSE")
        written.append("LICENSE")
    if not any(_LICENCE_FILE.fullmatch(name) for name in written):
        raise SystemExit(f"{package.name}@{package.version}: no licence file in {tarball.name}; "
                         "keep its repository's licence text in book/_offline/licences/ and "
                         "name it in licence_text")
    return sorted(written)


def licences_index(found: dict[NpmPackage, list[str]]) -> str:
    """vendor/LICENSES.txt: every vendored package, its version, licence and licence files."""
    lines = ["Third-party software vendored into this site (scripts/vendor_web_assets.py),",
             "each with its licence files in its own folder:", ""]
    for package, names in found.items():
        lines.append(f"vendor/{package.folder}/: {package.name} {package.version} "
                     f"({package.licence}): {', '.join(names)}")
    lines += ["", "vendor/html-manager/ also holds Font Awesome 5 Free's fonts, which its bundle",
              "uses (Fonts: SIL OFL 1.1; Code: MIT; Icons: CC BY 4.0; https://fontawesome.com).",
              "The mathjax-hub-shim.js and html-manager-paths.js glue files are the course's own",
              "(MIT, see the repository's LICENSE)."]
    return "\n".join(lines) + "\n"


def vendor(book: Path) -> Path:
    """Make book/_web_assets/site/vendor/ hold every pinned package; return that folder."""
    assets = book / "_web_assets"
    vendor_dir = assets / "site" / "vendor"
    stamp = vendor_dir / "versions.json"
    wanted = {"format": FORMAT, **{package.name: package.version for package in PACKAGES}}
    if not stamp.exists() or json.loads(stamp.read_text()) != wanted:
        found = {}
        for package in PACKAGES:
            tarball = npm_pack(package, assets / "npm")
            count = unpack(package, tarball, vendor_dir / package.folder)
            found[package] = vendor_licences(package, tarball, vendor_dir / package.folder,
                                             book / "_offline" / "licences")
            print(f"vendored {package.name}@{package.version}: {count} files, licence "
                  f"{', '.join(found[package])}", flush=True)
        (vendor_dir / "LICENSES.txt").write_text(licences_index(found))
        stamp.write_text(json.dumps(wanted, indent=1) + "\n")
    # Always refresh the glue: it is our own source and cheap to copy.
    for name, folder in GLUE.items():
        shutil.copyfile(book / "_offline" / name, vendor_dir / folder / name)
    return vendor_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_book = Path(__file__).resolve().parent.parent / "book"
    parser.add_argument("--book", type=Path, default=default_book, help="the book's root folder")
    args = parser.parse_args(argv)
    if not (args.book / "_config.yml").is_file():
        parser.error(f"{args.book} is not a Jupyter Book root (no _config.yml)")
    vendor(args.book)
    return 0


if __name__ == "__main__":
    sys.exit(main())
