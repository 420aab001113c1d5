#!/usr/bin/env bash
# Install everything the tests need (Python packages; LibreOffice Calc with apt when it is missing and we are
# root), then run the whole test suite. Extra arguments go to pytest. "No tests ran" (pytest's exit 5) fails.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
"$PYTHON" -m pip install --quiet --disable-pip-version-check -e ".[test]"
if ! command -v soffice >/dev/null 2>&1 && ! command -v libreoffice >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends libreoffice-calc-nogui >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends libreoffice-calc-nogui; }
    else
        echo "LibreOffice Calc is missing and cannot be installed here (needs root and apt-get);" \
             "its tests will skip (or fail with CI=true)." >&2
    fi
fi
set +e
"$PYTHON" -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    exit 1
fi
exit "$status"
