"""Every package scripts/vendor_web_assets.py puts on the site ships with its licence: the
licence files it picks from a tarball (a fake one here, and the real ones when the npm cache is
there), the texts kept for the packages whose tarball has none, and a whole offline vendoring."""

from __future__ import annotations

import importlib.util
import io
import shutil
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "vendor_web_assets.py"
spec = importlib.util.spec_from_file_location("vendor_web_assets", SCRIPT)
vendoring = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = vendoring  # dataclasses resolve the module by name
spec.loader.exec_module(vendoring)

CACHE = ROOT / "book" / "_web_assets" / "npm"
TEXTS = ROOT / "book" / "_offline" / "licences"
#: What each vendored package ships beside its files.
EXPECTED = {"mathjax": ["LICENSE"],
            "@jupyter-widgets/html-manager": ["LICENSE", "embed.js.LICENSE.txt"],
            "requirejs": ["LICENSE"]}


def fake(tmp_path: Path, files: dict[str, str], **fields) -> tuple:
    """A package (root ``dist``) and its tarball holding ``files`` (name under package/ →
    text)."""
    package = vendoring.NpmPackage(**{"name": "fake", "version": "1.0.0", "integrity": "",
                                      "folder": "fake", "root": "dist", **fields})
    tarball = tmp_path / package.tarball
    with tarfile.open(tarball, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return package, tarball


def test_licence_files_are_picked_at_the_top_and_beside_the_bundles(tmp_path):
    package, _ = fake(tmp_path, {})
    names = ["package/LICENSE", "package/licence.md", "package/COPYING.txt", "package/NOTICE",
             "package/dist/app.js", "package/dist/app.js.LICENSE.txt",
             "package/lib/LICENSE", "package/lib/other.js.LICENSE.txt", "package/LICENSEE.js",
             "package/README.md", "package/../LICENSE", "other/LICENSE"]
    assert vendoring.licence_members(package, names) == {
        "package/COPYING.txt": "COPYING.txt", "package/LICENSE": "LICENSE",
        "package/NOTICE": "NOTICE", "package/dist/app.js.LICENSE.txt": "app.js.LICENSE.txt",
        "package/licence.md": "licence.md"}


def test_a_package_is_vendored_with_its_licence(tmp_path):
    package, tarball = fake(tmp_path, {"LICENSE": "MIT text", "dist/app.js": "x",
                                       "dist/app.js.LICENSE.txt": "bundled"})
    dest = tmp_path / "site"
    vendoring.unpack(package, tarball, dest)
    assert vendoring.vendor_licences(package, tarball, dest, TEXTS) == \
        ["LICENSE", "app.js.LICENSE.txt"]
    assert (dest / "LICENSE").read_text() == "MIT text" and (dest / "app.js").exists()


def test_a_package_without_a_licence_file_takes_the_kept_text_or_is_refused(tmp_path):
    package, tarball = fake(tmp_path, {"dist/app.js": "x"})
    dest = tmp_path / "site"
    vendoring.unpack(package, tarball, dest)
    with pytest.raises(SystemExit, match="no licence file"):
        vendoring.vendor_licences(package, tarball, dest, TEXTS)
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "fake-LICENSE").write_text("kept text")
    kept = vendoring.NpmPackage(**{**vars(package), "licence_text": "fake-LICENSE"})
    assert vendoring.vendor_licences(kept, tarball, dest, tmp_path / "texts") == ["LICENSE"]
    assert (dest / "LICENSE").read_text() == "kept text"


def test_a_kept_text_is_not_used_once_the_tarball_has_its_own(tmp_path):
    package, tarball = fake(tmp_path, {"LICENSE": "own", "dist/app.js": "x"},
                            licence_text="requirejs-LICENSE")
    with pytest.raises(SystemExit, match="drop licence_text"):
        vendoring.vendor_licences(package, tarball, tmp_path, TEXTS)


def test_every_package_names_its_licence_and_the_kept_texts_exist():
    assert {p.name for p in vendoring.PACKAGES} == set(EXPECTED)
    for package in vendoring.PACKAGES:
        assert package.licence, f"{package.name}: which licence does its package.json declare?"
        if package.licence_text is not None:
            text = (TEXTS / package.licence_text).read_text()
            assert package.licence in text and "Copyright" in text


def cached(package) -> Path:
    tarball = CACHE / package.tarball
    if not tarball.exists():
        pytest.skip(f"no npm cache ({tarball} is made by `make book`, with the network)")
    return tarball


@pytest.mark.parametrize("package", vendoring.PACKAGES, ids=lambda p: p.name)
def test_the_real_tarballs_licence_files(package, tmp_path):
    """From the cached tarballs, without the network: what each package ships beside its files."""
    tarball = cached(package)
    assert vendoring.vendor_licences(package, tarball, tmp_path, TEXTS) == EXPECTED[package.name]


def test_vendoring_offline_puts_every_licence_on_the_site(tmp_path):
    """The whole step, from the cached tarballs: each vendored folder has its LICENSE, and
    vendor/LICENSES.txt lists them."""
    book = tmp_path / "book"
    (book / "_web_assets" / "npm").mkdir(parents=True)
    for package in vendoring.PACKAGES:
        shutil.copy(cached(package), book / "_web_assets" / "npm")
    shutil.copytree(ROOT / "book" / "_offline", book / "_offline")
    (book / "_config.yml").write_text("title: t\n")
    site = vendoring.vendor(book)
    index = (site / "LICENSES.txt").read_text()
    for package in vendoring.PACKAGES:
        for name in EXPECTED[package.name]:
            assert (site / package.folder / name).stat().st_size > 0
        assert f"{package.name} {package.version} ({package.licence})" in index
    assert "Apache License" in (site / "mathjax" / "LICENSE").read_text()
