"""A throw-away PostgreSQL server for the integration tests (``make test-integration``).

Uses the server binaries of Debian's ``postgresql`` package (``initdb``, ``pg_ctl``, on the
``PATH`` or under ``/usr/lib/postgresql/*/bin``); installs nothing. The cluster lives in a
temporary directory, listens on 127.0.0.1 only (a free port) and is stopped by its pid.
Run as root, the server runs as the ``postgres`` user (PostgreSQL refuses to run as root).
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

    def start(self) -> "PostgresServer":
        if self.owner is not None:
            os.chown(self.tmp, self.owner.pw_uid, self.owner.pw_gid)
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
