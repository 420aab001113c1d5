#!/usr/bin/env bash
# Install everything the tests need (the Python packages into .venv, made once; LibreOffice Calc, Gnumeric, Chromium and
# poppler-utils with apt when they are missing and we are root), then run the whole test suite on every core
# (pytest-xdist; a group's expensive session fixture stays on one worker: --dist loadgroup). Extra arguments go to
# pytest, e.g. -m "not spreadsheet and not long" for the fast tier, -n 0 for one process. "No tests ran" (pytest's
# exit 5) fails.
set -euo pipefail
cd "$(dirname "$0")/.."
PLANNER_EXTRAS="[test,dask]"  # dask: `planner batch --scheduler` and its tests
# pip's check of an installed, editable project takes 7 s of the fast tier's minute: skipped while .venv holds this
# pyproject.toml's install (the project's code itself is read from the checkout)
stamp="${PLANNER_VENV:-.venv}/.installed-for-tests"
if [ -x "${PLANNER_VENV:-.venv}/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$(sha256sum pyproject.toml)" ]; then
    PYTHON="${PLANNER_VENV:-.venv}/bin/python"
else
    source scripts/venv.sh
    sha256sum pyproject.toml > "$stamp"
fi
missing=()
command -v soffice >/dev/null 2>&1 || command -v libreoffice >/dev/null 2>&1 || missing+=(libreoffice-calc-nogui)
command -v ssconvert >/dev/null 2>&1 || missing+=(gnumeric)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)  # the printed pages' test reads the PDF's words
command -v chromium >/dev/null 2>&1 || missing+=(chromium)  # the batch index's sorting and filtering, in a browser
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}"; }
    else
        echo "${missing[*]} missing and cannot be installed here (needs root and apt-get);" \
             "the spreadsheet tests will skip (or fail with CI=true)." >&2
    fi
fi
# Compiled modules (and pytest's assertion-rewritten test modules) kept in __pycache__ between runs and shared by
# the workers: without them each worker compiles every module again (seconds of the fast tier's minute).
unset PYTHONDONTWRITEBYTECODE
set +e
"$PYTHON" -m pytest -n auto --dist loadgroup "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    exit 1
fi
exit "$status"
