"""The build backend of the gmm Python package (PEP 517, with PEP 660 editable installs), in the
standard library only, so that pip builds it offline with nothing to download: no setuptools, no
wheel package. pyproject.toml names it (backend-path ["."]).

The wheel holds the package gmm/ and a copy of libgmm: $GMM_LIBRARY if set, else this checkout's
build/libgmm.so.1 (from `make`), with the CUDA backend library (libgmm-cuda.so.1) beside it when
that was built; libgmm opens the backend from its own folder only when a GPU is asked for. A wheel
with the library is tagged for this machine (py3-none-linux_x86_64: pure Python over a ctypes-loaded
library, so any Python 3, one platform); without one it is py3-none-any and gmm looks for libgmm at
import (gmm/_lib.py).

Run as a script it also serves the Makefile (`make python-wheel`, `make install-python`):
  python3 gmm_build.py wheel [--library PATH] [--out DIR]      builds the wheel, prints its path
  python3 gmm_build.py install WHEEL [--prefix P] [--destdir D] [--site-dir S]
  python3 gmm_build.py uninstall [--prefix P] [--destdir D] [--site-dir S]
  python3 gmm_build.py site-dir [--prefix P]    where install puts the package for this python
"""

import argparse
import ast
import base64
import hashlib
import io
import os
import re
import shutil
import site
import sys
import sysconfig
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "gmm"
LIBRARIES = ("libgmm.so.1", "libgmm-cuda.so.1")  # the CPU library, then the optional CUDA backend
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so that the same inputs give the same wheel


# ---- pyproject.toml's [project] ------------------------------------------------------------

def _read_toml_subset(text):
    """The tables of a TOML file written as ours is: [table] headers and `key = value` where the
    value is a string or an array of strings, possibly over several lines. For Pythons before
    3.11, which have no tomllib."""
    tables, table, pending = {}, None, ""
    for line in text.splitlines():
        line = line.split(" #")[0].strip() if not pending else line.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        header = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
        if header and not pending:
            table = tables
            for part in header.group(1).split("."):  # [a.b] is the table b inside a
                table = table.setdefault(part, {})
            continue
        pending += " " + line
        key, _, value = pending.partition("=")
        if value.count("[") > value.count("]"):
            continue  # an array goes on on the next line
        table[key.strip().strip('"')] = ast.literal_eval(value.strip())
        pending = ""
    return tables


def project():
    """pyproject.toml's [project] table, with the Readme's text."""
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        raw = f.read()
    try:
        import tomllib
        meta = tomllib.loads(raw.decode())["project"]
    except ImportError:
        meta = _read_toml_subset(raw.decode())["project"]
    readme = meta.get("readme")
    meta["readme_text"] = open(os.path.join(HERE, readme), encoding="utf-8").read() if readme else ""
    return meta


def dist_name(meta):
    return re.sub(r"[-_.]+", "_", meta["name"]).lower()


def metadata_text(meta):
    """The METADATA (core metadata 2.1) of the distribution."""
    lines = ["Metadata-Version: 2.1", f"Name: {meta['name']}", f"Version: {meta['version']}",
             f"Summary: {meta.get('description', '')}"]
    if "requires-python" in meta:
        lines.append(f"Requires-Python: {meta['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in meta.get("dependencies", [])]
    for extra, deps in meta.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    if meta["readme_text"]:
        lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + meta["readme_text"]


# ---- the wheel ---------------------------------------------------------------------------------

def platform_tag():
    """This Python's platform as a wheel tag: linux-x86_64 -> linux_x86_64."""
    return re.sub(r"[-.]", "_", sysconfig.get_platform())


def find_library():
    """The libgmm to put in the wheel: $GMM_LIBRARY, else ../build/libgmm.so.1; None if neither."""
    path = os.environ.get("GMM_LIBRARY") or os.path.join(HERE, "..", "build", LIBRARIES[0])
    if os.path.exists(path):
        return path
    if os.environ.get("GMM_LIBRARY"):
        raise FileNotFoundError(f"gmm: GMM_LIBRARY={path} does not exist")
    return None


def _package_files():
    """(path in the wheel, path on disk) of the package's Python files."""
    out = []
    for root, dirs, files in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "_libs"))
        for name in sorted(files):
            if name.endswith(".py"):
                disk = os.path.join(root, name)
                out.append((os.path.relpath(disk, HERE).replace(os.sep, "/"), disk))
    return out


class _WheelWriter:
    """A wheel being written: files added with their hashes, RECORD written last."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, arcname, data, mode=0o644, recorded=True):
        info = zipfile.ZipInfo(arcname, ZIP_DATE)
        info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        if recorded:
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            self.record.append(f"{arcname},sha256={digest.decode()},{len(data)}")

    def close(self, record_name):
        self.record.append(f"{record_name},,")
        self.add(record_name, ("\n".join(self.record) + "\n").encode(), recorded=False)
        self.zip.close()


def _dist_info_files(meta, tag):
    pure = "true" if tag.endswith("-any") else "false"
    wheel = (f"Wheel-Version: 1.0\nGenerator: gmm_build\nRoot-Is-Purelib: {pure}\nTag: {tag}\n")
    return {"METADATA": metadata_text(meta), "WHEEL": wheel, "top_level.txt": PACKAGE + "\n"}


def _write_wheel(wheel_directory, files, meta, tag):
    """files: (path in the wheel, bytes, mode). Returns the wheel's file name."""
    name = f"{dist_name(meta)}-{meta['version']}-{tag}.whl"
    info_dir = f"{dist_name(meta)}-{meta['version']}.dist-info"
    writer = _WheelWriter(os.path.join(wheel_directory, name))
    for arcname, data, mode in files:
        writer.add(arcname, data, mode)
    for fname, text in _dist_info_files(meta, tag).items():
        writer.add(f"{info_dir}/{fname}", text.encode())
    writer.close(f"{info_dir}/RECORD")
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    meta = project()
    files = [(arc, open(disk, "rb").read(), 0o644) for arc, disk in _package_files()]
    library = find_library()
    if library:
        folder = os.path.dirname(os.path.abspath(library))
        for i, soname in enumerate(LIBRARIES):
            source = library if i == 0 else os.path.join(folder, soname)
            if os.path.exists(source):
                with open(os.path.realpath(source), "rb") as f:
                    files.append((f"{PACKAGE}/_libs/{soname}", f.read(), 0o755))
        tag = f"py3-none-{platform_tag()}"
    else:
        print("gmm: no libgmm found (build/libgmm.so.1 or $GMM_LIBRARY): a pure wheel; the "
              "package will look for libgmm at import", file=sys.stderr)
        tag = "py3-none-any"
    return _write_wheel(wheel_directory, files, meta, tag)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel of one .pth file that puts this folder on sys.path: gmm is imported from the
    checkout, and finds the checkout's build/libgmm.so.1 (gmm/_lib.py)."""
    meta = project()
    pth = (HERE + "\n").encode()
    return _write_wheel(wheel_directory, [(f"__editable__.{dist_name(meta)}.pth", pth, 0o644)],
                        meta, "py3-none-any")


def build_sdist(sdist_directory, config_settings=None):
    """The Python sources (no library: a wheel built from it takes $GMM_LIBRARY)."""
    meta = project()
    base = f"{dist_name(meta)}-{meta['version']}"
    members = [(arc, disk) for arc, disk in _package_files()]
    members += [(n, os.path.join(HERE, n)) for n in ("pyproject.toml", "gmm_build.py", "README.md")]
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for arc, disk in members:
            tar.add(disk, arcname=f"{base}/{arc}")
        data = metadata_text(meta).encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    meta = project()
    info_dir = f"{dist_name(meta)}-{meta['version']}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info_dir), exist_ok=True)
    # the tag written here is not read by pip; build_wheel writes the real one
    for fname, text in _dist_info_files(meta, "py3-none-any").items():
        with open(os.path.join(metadata_directory, info_dir, fname), "w") as f:
            f.write(text)
    return info_dir


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


# ---- installing without pip (make install-python) ------------------------------------------

def site_dir(prefix):
    """Where a package installed under prefix is imported from by this Python: the user's site
    folder for the user base (~/.local), Debian's <prefix>/lib/python3.X/dist-packages when it is on
    sys.path (/usr/local), else <prefix>/lib/python3.X/site-packages."""
    prefix = os.path.abspath(prefix)
    if os.path.abspath(site.getuserbase()) == prefix:
        return site.getusersitepackages()
    debian = os.path.join(prefix, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}",
                          "dist-packages")
    if debian in sys.path:
        return debian
    return sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix})


def install(wheel, target):
    """Unpacks the wheel into target (a site folder), as an installer does; `make` as INSTALLER."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info_dir = next(n.split("/")[0] for n in names if n.endswith(".dist-info/RECORD"))
        for info in z.infolist():
            out = os.path.join(target, *info.filename.split("/"))
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(info) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(out, (info.external_attr >> 16) & 0o777 or 0o644)
    with open(os.path.join(target, info_dir, "INSTALLER"), "w") as f:
        f.write("make\n")
    with open(os.path.join(target, info_dir, "RECORD"), "a") as f:
        f.write(f"{info_dir}/INSTALLER,,\n")
    return os.path.join(target, PACKAGE)


def uninstall(target):
    """Removes what install (or pip) put in target for this distribution, any version: the files
    its RECORD lists, the bytecode Python wrote beside them, then the folders left empty."""
    prefix = dist_name(project()) + "-"
    records = [os.path.join(target, d, "RECORD") for d in sorted(os.listdir(target))
               if d.startswith(prefix) and d.endswith(".dist-info")] if os.path.isdir(target) else []
    folders = set()
    for record in filter(os.path.exists, records):
        with open(record) as f:
            for line in f:
                rel = line.rsplit(",", 2)[0]
                path = os.path.join(target, *rel.split("/"))
                folders.add(os.path.dirname(path))
                if rel and os.path.lexists(path):
                    os.remove(path)
    for folder in sorted(folders, key=len, reverse=True):
        shutil.rmtree(os.path.join(folder, "__pycache__"), ignore_errors=True)
        while folder.startswith(target + os.sep) and os.path.isdir(folder) and not os.listdir(folder):
            os.rmdir(folder)
            folder = os.path.dirname(folder)
    return bool(folders)


def main(argv):
    parser = argparse.ArgumentParser(prog="gmm_build.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["wheel", "install", "uninstall", "site-dir"])
    parser.add_argument("wheel", nargs="?", help="the wheel to install")
    parser.add_argument("--library", help="the libgmm.so.1 to put in the wheel")
    parser.add_argument("--out", default=".", help="where the wheel goes")
    parser.add_argument("--prefix", default="/usr/local")
    parser.add_argument("--destdir", default="", help="staging root put before the site folder")
    parser.add_argument("--site-dir", help="the folder to install into (default: site-dir's)")
    args = parser.parse_args(argv)
    if args.command == "wheel":
        if args.library:
            os.environ["GMM_LIBRARY"] = os.path.abspath(args.library)
        os.makedirs(args.out, exist_ok=True)
        print(os.path.join(args.out, build_wheel(args.out)))
        return 0
    target = args.site_dir or site_dir(args.prefix)
    if args.command == "site-dir":
        print(target)
        return 0
    target = args.destdir.rstrip("/") + os.path.abspath(target) if args.destdir else target
    if args.command == "install":
        if not args.wheel:
            parser.error("install needs the wheel")
        uninstall(target)  # an earlier install of this version goes first
        print(f"gmm: installed {install(args.wheel, target)}")
    else:
        print(f"gmm: {'removed from' if uninstall(target) else 'not installed in'} {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
