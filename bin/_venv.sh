# Sourced by bin/serve, bin/manage and bin/test: make .venv with Python 3.11+ and install the pinned
# requirements when they changed since the last install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
lock_file="${1:-requirements.lock}"
python_bin="${PYTHON:-}"
if [ -z "$python_bin" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 14) else 1)'; then
      python_bin="$candidate"; break
    fi
  done
fi
[ -n "$python_bin" ] || { echo "Python 3.11 to 3.13 is needed (set PYTHON=...)." >&2; exit 1; }
[ -x .venv/bin/python ] || "$python_bin" -m venv .venv
# A stamp per lock file, over the content of every lock: a lock and the locks it includes (-r) are
# marked installed together, so bin/serve after bin/test installs nothing.
locks_hash="$(cat requirements*.lock | sha256sum | cut -c1-16)"
mark_installed() {
  touch ".venv/.installed-${1%.lock}-$locks_hash"
  local included
  for included in $(sed -n 's/^-r[[:space:]]*//p' "$1"); do mark_installed "$included"; done
}
if [ ! -f ".venv/.installed-${lock_file%.lock}-$locks_hash" ]; then
  echo "Installing pinned requirements ($lock_file) into .venv ..."
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$lock_file"
  find .venv -maxdepth 1 -name '.installed-*' ! -name "*-$locks_hash" -delete
  mark_installed "$lock_file"
fi
# The checkout on the environment's path, after the standard library and the packages (as
# `pip install -e` would put it): `.venv/bin/pytest` finds the tests' plugin (pyproject's
# `-p tests.isolation`) as `python -m pytest` in the checkout does.
.venv/bin/python - "$PWD" <<'PY'
import pathlib, sys, sysconfig
(pathlib.Path(sysconfig.get_paths()["purelib"]) / "casino-war-checkout.pth").write_text(sys.argv[1] + "\n")
PY
export PATH="$PWD/.venv/bin:$PATH"
