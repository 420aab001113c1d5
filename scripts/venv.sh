# Sourced by run.sh and test.sh: make (once) and use a virtual environment in .venv, so the commands work where
# the system's python3 refuses pip installs outside one (PEP 668, "externally-managed-environment"), then install
# the project into it. Sets PYTHON. Extra pip requirements (".[test]") come in $PLANNER_EXTRAS.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${PLANNER_VENV:-$ROOT/.venv}
BASE_PYTHON=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
    if ! "$BASE_PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
        # Debian and Ubuntu ship venv's pip (ensurepip) in a package of its own
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "installing python3-venv with apt-get" >&2
            rm -rf "$VENV"
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y -q --no-install-recommends python3-venv >/dev/null 2>&1 \
                || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends python3-venv; }
            "$BASE_PYTHON" -m venv "$VENV"
        else
            echo "cannot make a virtual environment with $BASE_PYTHON: install python3-venv (Debian, Ubuntu) and retry" >&2
            exit 1
        fi
    fi
fi
PYTHON="$VENV/bin/python"
# --no-compile: Python compiles the modules it imports when it first imports them; compiling every installed file
# (pandas, numpy, …) up front took half of a fresh install's 55 s
"$PYTHON" -m pip install --quiet --disable-pip-version-check --no-compile -e "$ROOT${PLANNER_EXTRAS:-}"
