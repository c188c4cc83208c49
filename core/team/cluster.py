"""A throwaway PostgreSQL cluster on a Unix socket: for tests, the load drill and trying a team store.

``initdb`` + ``pg_ctl`` in a temporary folder, no TCP (``listen_addresses=''``), the socket in
the same folder. PostgreSQL refuses to run as root, so as root the server runs as the
``postgres`` system user (``runuser``); as anyone else it runs as that user. The superuser
of the cluster is ``postgres`` either way (``initdb -U postgres``), reached through the socket
with ``trust`` authentication: nothing listens outside the folder, whose mode is 0700 except
to the server's user.

``python -m core.team.cluster start DIR`` prints the cluster's URL; ``stop DIR`` stops it.
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

PG_BIN_CANDIDATES = (
    "/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin",
    "/usr/lib/postgresql/14/bin", "/usr/local/pgsql/bin",
)
SUPERUSER = "postgres"


class ClusterUnavailable(RuntimeError):
    """No PostgreSQL server can be started here (one line saying why)."""


def find_pg_bin() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl`` (``WORKBENCH_PG_BIN``, PATH, the usual places)."""
    explicit = os.environ.get("WORKBENCH_PG_BIN")
    candidates = [explicit] if explicit else []  # when set, it is the only place looked at
    on_path = shutil.which("pg_ctl")
    if on_path and not explicit:
        candidates.append(str(Path(on_path).parent))
    if not explicit:
        candidates.extend(PG_BIN_CANDIDATES)
    for folder in candidates:
        if folder and (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    where = explicit or "PATH and " + ", ".join(PG_BIN_CANDIDATES[:3]) + ", …"
    raise ClusterUnavailable(f"PostgreSQL server binaries (initdb, pg_ctl) not found in {where}; "
                             "install postgresql or set WORKBENCH_PG_BIN")


@dataclass(frozen=True)
class Cluster:
    """A running cluster: its folder (data in ``data/``, the socket in ``socket/``)."""

    root: Path
    bin_dir: Path
    run_as: str | None  # the system user the server runs as (None: the current user)

    @property
    def socket_dir(self) -> Path:
        return self.root / "socket"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres", user: str = SUPERUSER, password: str | None = None) -> str:
        """A psycopg URL through the Unix socket."""
        secret = f":{password}" if password else ""
        return f"postgresql://{user}{secret}@/{database}?host={self.socket_dir}"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = list(args)
        if self.run_as:
            command = ["runuser", "-u", self.run_as, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check, timeout=120)

    def stop(self) -> None:
        if (self.data_dir / "postmaster.pid").exists():
            self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop",
                      check=False)

    def create_database(self, name: str) -> str:
        """Create database ``name`` (owned by the superuser) and return its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _server_user() -> str | None:
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError as error:
        raise ClusterUnavailable("running as root and no 'postgres' system user to run the server as") from error
    if shutil.which("runuser") is None:
        raise ClusterUnavailable("running as root and no runuser to start the server as 'postgres'")
    return "postgres"


def start_cluster(root: Path | None = None, max_connections: int = 100) -> Cluster:
    """initdb + start a cluster in ``root`` (a new temporary folder when None); raise ClusterUnavailable."""
    bin_dir = find_pg_bin()
    run_as = _server_user()
    base = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="workbench-pg-"))
    base.mkdir(parents=True, exist_ok=True)
    cluster = Cluster(base, bin_dir, run_as)
    cluster.socket_dir.mkdir(exist_ok=True)
    if run_as:
        entry = pwd.getpwnam(run_as)
        for folder in (base, cluster.socket_dir):
            os.chown(folder, entry.pw_uid, entry.pw_gid)
    os.chmod(base, 0o700)
    try:
        if not (cluster.data_dir / "PG_VERSION").exists():
            cluster._run(str(bin_dir / "initdb"), "-D", str(cluster.data_dir), "-U", SUPERUSER,
                         "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync")
        options = (f"-c listen_addresses='' -c unix_socket_directories='{cluster.socket_dir}' "
                   f"-c max_connections={max_connections} -c fsync=off -c synchronous_commit=off "
                   f"-c full_page_writes=off -c shared_buffers=64MB")
        cluster._run(str(bin_dir / "pg_ctl"), "-D", str(cluster.data_dir), "-o", options,
                     "-l", str(base / "server.log"), "-w", "-t", "60", "start")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
        detail = getattr(error, "stderr", None) or str(error)
        raise ClusterUnavailable(f"PostgreSQL could not be started in {base}: "
                                 f"{str(detail).strip().splitlines()[-1] if str(detail).strip() else error}") from error
    return cluster


def existing_cluster(root: Path) -> Cluster:
    return Cluster(Path(root), find_pg_bin(), _server_user())


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core.team.cluster",
                                     description="a throwaway PostgreSQL cluster on a Unix socket")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("start", "stop"):
        sub.add_parser(name).add_argument("root", type=Path, help="the cluster's folder")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            print(start_cluster(args.root).url())
        else:
            existing_cluster(args.root).stop()
    except ClusterUnavailable as error:
        print(f"error: {error}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
