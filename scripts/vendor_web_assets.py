"""Vendor the JavaScript the book's pages load, so the built site works with no network at all.

By default Jupyter Book 1 pages load MathJax, RequireJS and the ipywidgets HTML manager from
CDNs; offline, a reader then sees raw TeX and no widgets. This script runs at `make book` time
(when the npm registry is reachable; nothing is fetched when the site is read):

1. `npm pack` each pinned package into book/_web_assets/npm/ (once: later builds reuse the
   tarball after checking its sha512 against the registry's integrity string pinned below);
2. unpack the files the pages use into book/_web_assets/site/vendor/<name>/, which
   book/_config.yml serves at the site root through `html_extra_path`;
3. copy our two small glue scripts from book/_offline/ next to the packages they serve.

Usage: python scripts/vendor_web_assets.py [--book book]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
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
    ),
    NpmPackage(
        "@jupyter-widgets/html-manager",
        "1.0.15",
        "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        "html-manager",
        "dist",
        _html_manager_files,
    ),
    NpmPackage(
        "requirejs",
        "2.3.8",
        "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
        "requirejs",
        "",
        _requirejs_files,
    ),
)

# Our own glue scripts in book/_offline/ -> the vendor/ folder each goes to (see their comments).
GLUE = {"mathjax-hub-shim.js": "mathjax", "html-manager-paths.js": "html-manager"}


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


def vendor(book: Path) -> Path:
    """Make book/_web_assets/site/vendor/ hold every pinned package; return that folder."""
    assets = book / "_web_assets"
    vendor_dir = assets / "site" / "vendor"
    stamp = vendor_dir / "versions.json"
    wanted = {package.name: package.version for package in PACKAGES}
    if not stamp.exists() or json.loads(stamp.read_text()) != wanted:
        for package in PACKAGES:
            tarball = npm_pack(package, assets / "npm")
            count = unpack(package, tarball, vendor_dir / package.folder)
            print(f"vendored {package.name}@{package.version}: {count} files", flush=True)
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
