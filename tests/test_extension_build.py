"""The JupyterLab extension's build plumbing: jest suite, install, and the wheel.

``pip install -e .`` builds ``extension/`` (jlpm install + build, through
hatch-jupyter-builder) into ``passviz/labextension`` and ``passviz/static``;
``jupyter labextension develop --overwrite .`` then links the former into
JupyterLab.  Locally these tests skip when that has not been done; in CI
(``CI`` set) they fail instead, as the browser tests do.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import need

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "extension"
LABEXTENSION = ROOT / "passviz" / "labextension"
STATIC = ROOT / "passviz" / "static"
VERSION = "0.1.0"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _node_setup() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if shutil.which("jlpm") is None:
        return "jlpm is missing (pip install -e '.[test]' installs jupyterlab)"
    if not (EXTENSION / "node_modules" / ".bin" / "jest").exists():
        return "extension/node_modules is missing (pip install -e . or cd extension && jlpm install)"
    return None


def _built() -> str | None:
    for path in (LABEXTENSION / "package.json", LABEXTENSION / "static" / "style.js", STATIC / "viewer.js"):
        if not path.exists():
            return f"{path.relative_to(ROOT)} is not built (pip install -e . or `cd extension && jlpm build`)"
    return None


def _run(command: list[str], cwd: Path = ROOT, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    done.stdout = ANSI.sub("", done.stdout)
    done.stderr = ANSI.sub("", done.stderr)
    return done


def _listed(output: str, prefix: Path | None = None) -> list[str]:
    """The ``passviz`` lines of ``jupyter labextension list`` (under ``prefix``'s folder if given)."""
    lines: list[str] = []
    section: str | None = None
    for line in output.splitlines():
        if line and not line[0].isspace():
            section = line.strip()
        elif line.split()[:1] == ["passviz"]:
            if prefix is None or (section is not None and Path(section).is_relative_to(prefix)):
                lines.append(line.strip())
    return lines


def _nested_venv(venv: Path) -> Path:
    """A new virtualenv at ``venv`` that sees this interpreter's packages but has its own prefix.

    ``venv --system-site-packages`` alone would see only the base Python's packages when pytest
    runs in a virtualenv; a ``.pth`` file adds this environment's site-packages after the new one's.
    """
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(venv)]).returncode == 0
    python = venv / "bin" / "python"
    done = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    assert done.returncode == 0, done.stderr
    ours = "".join(f"{path}\n" for path in site.getsitepackages())
    Path(done.stdout.strip(), "outer-environment.pth").write_text(ours)
    return venv


def test_jest_suite_passes() -> None:
    need(_node_setup())
    done = _run(["jlpm", "test", "--ci"], cwd=EXTENSION, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    summary = re.search(r"^Tests:.*?(\d+) passed", output, re.MULTILINE)
    assert summary is not None, output
    assert int(summary.group(1)) > 0, output


def test_yarn_lock_matches_package_json() -> None:
    """``extension/yarn.lock`` pins every dependency: an immutable install changes nothing."""
    need(_node_setup())
    done = _run(["jlpm", "install", "--immutable", "--mode=skip-build"], cwd=EXTENSION, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_labextension_is_enabled() -> None:
    need(_built())
    # `jupyter labextension list`, run by this interpreter so it reads this environment.
    done = _run([sys.executable, "-m", "jupyterlab.labextensions", "list"], timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    lines = _listed(output)
    assert lines, f"passviz is not listed; run `jupyter labextension develop --overwrite .`\n{output}"
    assert all(f"v{VERSION}" in line and "enabled" in line and "OK" in line for line in lines), output


def test_wheel_carries_the_prebuilt_extension(tmp_path: Path) -> None:
    """The wheel holds the built extension and viewer; installing it needs no node."""
    need(_built())
    dist = tmp_path / "dist"
    done = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)])
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = dist.glob(f"passviz-{VERSION}-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    share = f"passviz-{VERSION}.data/data/share/jupyter/labextensions/passviz/"
    for name in ("package.json", "install.json", "static/style.js"):
        assert share + name in names, sorted(names)
    assert any(re.fullmatch(re.escape(share) + r"static/remoteEntry\.[0-9a-f]+\.js", n) for n in names)
    assert {"passviz/static/viewer.js", "passviz/static/viewer.css", "passviz/__init__.py"} <= names
    # Build inputs and intermediates stay out.
    assert not [
        n for n in names if "node_modules/" in n or n.startswith(("extension/", "passviz/labextension/"))
    ]

    # A fresh environment: no node on PATH, only the wheel, and this environment's packages (jupyterlab).
    venv = _nested_venv(tmp_path / "venv")
    python = venv / "bin" / "python"
    done = _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", str(wheel)])
    assert done.returncode == 0, done.stdout + done.stderr
    env = {**os.environ, "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    done = subprocess.run(
        [str(python), "-m", "jupyterlab.labextensions", "list"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = ANSI.sub("", done.stdout + done.stderr)
    assert done.returncode == 0, output
    lines = _listed(output, prefix=venv)
    assert len(lines) == 1, output
    assert f"v{VERSION}" in lines[0] and "enabled" in lines[0] and "OK" in lines[0], output
    assert "(python, passviz)" in lines[0], output
