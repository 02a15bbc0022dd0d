"""Every command README shows in its code blocks, and every command the bin/serve banner shows,
works as written on a fresh copy of the project, after `bin/serve`.

The copy holds the project's files as a clone would (no .env, no var/), with the running
interpreter's virtualenv linked in as `.venv` (installing it again is not what is tested), and the
commands run in the environment of a person at a shell: none of the test run's settings, so
`bin/serve` starts its embedded PostgreSQL and Redis under the copy's var/, its own database.

`bin/serve` must start, answer /healthz, print its banner, and stop on Ctrl-C leaving no process
behind. Run with DATABASE_URL/REDIS_URL as README shows, those name the copy's embedded servers
(not a shared database). Simulations README runs at full size run smaller here (ODDS_SCALED_DOWN),
to keep the suite bounded; `bin/test` is the runner itself and Docker has no engine in CI.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from config.embedded import embedded_servers
from tests.test_production_recipe import production_recipe

ROOT = Path(__file__).resolve().parent.parent
SERVE_TIMEOUT_S = 600  # a fresh database is migrated first, on a busy 2-core machine
COMMAND_TIMEOUT_S = 300
ODDS_SCALED_DOWN = {"--rounds 2000000": "--rounds 20000", "--games 1000": "--games 20", "--games 2000": "--games 40"}


def readme_commands() -> list[str]:
    """The command lines of README's fenced shell blocks, continuation lines joined."""
    commands = []
    for block in re.findall(r"^ *```sh\n(.*?)^ *```", (ROOT / "README.md").read_text(), flags=re.M | re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                commands.append(" ".join(line.split()))
    return commands


def bare(command: str) -> str:
    """Without its trailing comment (bash drops it anyway)."""
    return re.sub(r"\s+#\s.*$", "", command)


def why_not_run(command: str) -> str | None:
    if bare(command) == "bin/test":
        return "bin/test is the runner of this very test"
    if bare(command) in production_recipe():
        return "README's production recipe: tests/test_production_recipe.py runs it"
    if "docker compose" in command:
        return "no Docker engine in CI (tests/test_docker.py checks the compose file)"
    if re.search(r"\b(make|compile)messages\b", command) and not (shutil.which("xgettext") and shutil.which("msgfmt")):
        return "needs GNU gettext (.ci/run installs it)"
    return None


def person_env(**extra: str) -> dict[str, str]:
    """A shell's environment: none of the test run's settings, and no virtualenv on PATH."""
    keep = ("HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "LOGNAME", "XDG_RUNTIME_DIR")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    path = [entry for entry in os.environ.get("PATH", "").split(os.pathsep) if not entry.startswith(sys.prefix)]
    return {**env, "PATH": os.pathsep.join(path or ["/usr/local/bin", "/usr/bin", "/bin"]), **extra}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def processes_in(copy: Path) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        if process.info["status"] != psutil.STATUS_ZOMBIE and str(copy) in " ".join(process.info["cmdline"] or []):
            found.append(process)
    return found


class Served:
    """`bin/serve` (or a README line that runs it) in the copy, its output collected."""

    def __init__(self, copy: Path, command: str, port: int):
        self.copy, self.port, self.lines = copy, port, []
        self.process = subprocess.Popen(
            ["bash", "-c", command],
            cwd=copy,
            env=person_env(PORT=str(port)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.reader = threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True)
        self.reader.start()

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_until_serving(self) -> None:
        deadline = time.monotonic() + SERVE_TIMEOUT_S
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"bin/serve exited:\n{self.output[-5000:]}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5) as response:
                    if response.status == 200 and "$ bin/manage ledger_verify" in self.output:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        pytest.fail(f"bin/serve did not answer /healthz with its banner in time:\n{self.output[-5000:]}")

    def banner_commands(self) -> list[str]:
        return re.findall(r"^\s+\$ (.+)$", self.output, flags=re.M)

    def interrupt(self) -> int:
        """Ctrl-C, as a terminal sends it: SIGINT to the whole foreground process group."""
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            return self.process.wait(timeout=120)
        finally:
            self.reader.join(timeout=10)


def run(copy: Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=copy,
        env=person_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
    )


@pytest.fixture(scope="module")
def copy():
    # Outside pytest's temporary directories: as root the embedded PostgreSQL runs as another user,
    # whom a pytest session starting meanwhile would lock out of them (it makes its base private).
    directory = Path(tempfile.mkdtemp(prefix="casino-war-readme-")) / "casino-war"
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, directory / name)
    (directory / ".venv").symlink_to(sys.prefix)
    yield directory
    for process in processes_in(directory):  # what a failed test left running
        process.kill()
    shutil.rmtree(directory.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def served(copy):
    """bin/serve on the fresh copy; the banner's commands run while it serves; then Ctrl-C."""
    served = Served(copy, "bin/serve", free_port())
    try:
        served.wait_until_serving()
        beside = {command: run(copy, command) for command in served.banner_commands()}
    finally:
        code = served.interrupt()
    return served, beside, code


def test_bin_serve_starts_serves_and_a_ctrl_c_stops_everything_it_started(copy, served):
    served, _, code = served
    assert code == 0, served.output[-3000:]
    assert "Casino War is running" in served.output
    assert (copy / ".env").exists() and "SECRET_KEY=" in (copy / ".env").read_text()
    deadline = time.monotonic() + 30
    while processes_in(copy) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not processes_in(copy), [p.info["cmdline"] for p in processes_in(copy)]


def test_the_banners_commands_work_beside_bin_serve(served):
    served, beside, _ = served
    assert "bin/manage staff_totp --username operator --code" in beside
    for command, result in beside.items():
        assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    assert re.fullmatch(r"\d{6}", beside["bin/manage staff_totp --username operator --code"].stdout.strip())


@pytest.mark.parametrize("command", readme_commands())
def test_readme_command_works_as_written(copy, served, command):
    reason = why_not_run(command)
    if reason:
        pytest.skip(reason)
    if "casino.odds" in command:
        for full, smaller in ODDS_SCALED_DOWN.items():
            command = command.replace(full, smaller)
    if "bin/serve" in command:
        if bare(command) != "bin/serve":  # bin/serve alone is the `served` fixture
            # The servers README names are the copy's own embedded ones, kept up by this lease.
            with embedded_servers(postgres=True, redis=True, var=copy / "var") as urls:
                command = re.sub(r"DATABASE_URL=\S+", f"DATABASE_URL={urls['DATABASE_URL']}", command)
                command = re.sub(r"REDIS_URL=\S+", f"REDIS_URL={urls['REDIS_URL']}", command)
                again = Served(copy, command, free_port())
                try:
                    again.wait_until_serving()
                    assert "embedded" not in again.output.split("Casino War is running")[1]
                finally:
                    assert again.interrupt() == 0, again.output[-3000:]
        return
    result = run(copy, command)
    assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    assert not processes_in(copy), "a management command left a server running"
