"""A throw-away PostgreSQL server for the integration tests (``make test-integration``).

Uses the server binaries of Debian's ``postgresql`` package (``initdb``, ``pg_ctl``, on the
``PATH`` or under ``/usr/lib/postgresql/*/bin``); installs nothing. The cluster lives in a
temporary directory, listens on 127.0.0.1 only (a free port) and is stopped by its pid.
Run as root, the server runs as the ``postgres`` user (PostgreSQL refuses to run as root).

A server with the pgvector extension (:func:`find_pgvector_bin_dir`) comes from the ``pgserver``
Python package (in the ``test`` extra: a PostgreSQL 16 build with pgvector's ``vector``
extension, whose ``initdb`` / ``pg_ctl`` / ``postgres`` are started here like Debian's), or from a
PostgreSQL server that has the extension installed (Debian's ``postgresql-NN-pgvector``, where
the archive has it; Debian 12's does not).
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def find_bin_dir() -> tuple[Path | None, str]:
    """The directory holding ``initdb`` and ``pg_ctl``, or ``(None, why not)``."""
    dirs = []
    found = shutil.which("initdb")
    if found:
        dirs.append(Path(os.path.realpath(found)).parent)
    dirs += [Path(d) for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for d in dirs:
        if (d / "initdb").is_file() and (d / "pg_ctl").is_file() and (d / "postgres").is_file():
            return d, ""
    return None, (
        "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or under /usr/lib/postgresql/*/bin; "
        "install Debian's postgresql package (apt-get install postgresql) to run this test"
    )


PGVECTOR_HOWTO = (
    "pip install pgserver (in the test extra, which make install installs: a PostgreSQL 16 server with pgvector, "
    "wheels for Python 3.9-3.12), or install a PostgreSQL server with the vector extension (Debian: apt-get install "
    "postgresql-NN-pgvector, where the archive has it; Debian 12's does not)"
)


def _has_vector(bin_dir: Path) -> bool:
    """Whether the server of ``bin_dir`` has pgvector: ``vector.so`` and ``vector.control`` in the
    layout of a source build (pgserver: ``../lib/postgresql``, ``../share/postgresql``) or Debian's."""
    root = bin_dir.parent
    libs = [root / "lib" / "postgresql" / "vector.so", root / "lib" / "vector.so"]
    controls = [root / "share" / "postgresql" / "extension" / "vector.control",
                Path("/usr/share/postgresql") / root.name / "extension" / "vector.control"]
    return any(p.is_file() for p in libs) and any(p.is_file() for p in controls)


def find_pgvector_bin_dir() -> tuple[Path | None, str]:
    """The directory of a PostgreSQL server with pgvector (pgserver's first, then the system's),
    or ``(None, why not and how to get one)``."""
    import importlib.util

    reasons = []
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.submodule_search_locations:
        d = Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"
        if not all((d / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            reasons.append(f"the pgserver package has no server binaries in {d}")
        elif not _has_vector(d):
            reasons.append(f"the pgserver package's server in {d} has no vector extension")
        else:
            try:
                subprocess.run([str(d / "postgres"), "--version"], capture_output=True, check=True, timeout=30)
                return d, ""
            except (OSError, subprocess.SubprocessError) as e:
                reasons.append(f"the pgserver package's postgres does not run here ({e})")
    else:
        reasons.append("the pgserver package is not installed")
    d, why = find_bin_dir()
    if d is None:
        reasons.append("no PostgreSQL server binaries on PATH or under /usr/lib/postgresql/*/bin")
    elif _has_vector(d):
        return d, ""
    else:
        reasons.append(f"the PostgreSQL server in {d} has no vector extension (pgvector)")
    return None, "no PostgreSQL server with pgvector: " + "; ".join(reasons) + ". To run this test: " + PGVECTOR_HOWTO


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """``start()`` a cluster in a temporary directory, ``url`` to connect, ``stop()`` by pid."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.run_as: list[str] = []
        self.owner: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                self.owner = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root and there is no 'postgres' user to run the server as") from None
            self.run_as = ["runuser", "-u", "postgres", "--"]
        self.tmp = Path(tempfile.mkdtemp(prefix="jar-pg-"))
        self.data = self.tmp / "data"
        self.port = _free_port()
        self.pid: int | None = None

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 120) -> None:
        p = subprocess.run([*self.run_as, *args], capture_output=True, text=True, timeout=timeout, cwd=self.tmp)
        if p.returncode != 0:
            log = (self.tmp / "server.log")
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{Path(args[0]).name} failed ({p.returncode}): {p.stderr.strip()} {tail}")

    def _reachable_bin_dir(self) -> Path:
        """``bin_dir``, or a copy of its installation in the temporary directory when the
        ``postgres`` user cannot run it where it is (a virtualenv under /root...): the
        installation's directory and, for pgserver's build, the ``pgserver.libs`` its binaries
        load (their RPATH is ``$ORIGIN/../../../pgserver.libs``)."""
        if not self.run_as or subprocess.run([*self.run_as, "test", "-x", str(self.bin_dir / "postgres")]).returncode == 0:
            return self.bin_dir
        install = self.bin_dir.parent
        target = self.tmp / "install" / install.parent.name / install.name
        shutil.copytree(install, target, symlinks=True)
        libs = install.parent.parent / "pgserver.libs"
        if libs.is_dir():
            shutil.copytree(libs, self.tmp / "install" / libs.name, symlinks=True)
        for d in (self.tmp / "install", target.parent):
            d.chmod(0o755)
        return target / self.bin_dir.name

    def start(self) -> "PostgresServer":
        if self.owner is not None:
            os.chown(self.tmp, self.owner.pw_uid, self.owner.pw_gid)
        self.bin_dir = self._reachable_bin_dir()
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
                  "-E", "UTF8", "--locale=C", "--no-sync")
        options = f"-h 127.0.0.1 -p {self.port} -k {self.tmp} -c fsync=off -c full_page_writes=off"
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.tmp / "server.log"),
                  "-o", options, "-w", "-t", "60", "start")
        self.pid = int((self.data / "postmaster.pid").read_text().split()[0])
        return self

    def stop(self) -> None:
        """Fast shutdown of the postmaster by its pid (SIGINT), harder signals if it lingers."""
        pid, self.pid = self.pid, None
        if pid is not None:
            for sig, wait in ((signal.SIGINT, 30.0), (signal.SIGQUIT, 10.0), (signal.SIGKILL, 5.0)):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    break
                deadline = time.monotonic() + wait
                while time.monotonic() < deadline:
                    try:
                        os.kill(pid, 0)
                    except ProcessLookupError:
                        break
                    time.sleep(0.1)
                else:
                    continue
                break
        shutil.rmtree(self.tmp, ignore_errors=True)


def start_or_skip(found: tuple[Path | None, str], howto: str = "") -> PostgresServer:
    """A started server on the binaries ``found`` (a ``find_*bin_dir()`` result), or a pytest
    skip saying why there is none (with ``howto`` after the reason, when given)."""
    import pytest

    bin_dir, why = found
    if bin_dir is None:
        pytest.skip(why)
    try:
        srv = PostgresServer(bin_dir)
    except RuntimeError as e:
        pytest.skip(f"{e}; {howto}" if howto else str(e))
    srv.start()
    return srv
