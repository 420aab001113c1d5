#!/usr/bin/env bash
# Install the planner into .venv (made once), then run it: without arguments, `planner run`, which writes the
# default scenario's workbook, HTML summary and JSON into output/. Arguments go to planner (e.g. run my.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
if [ "$#" -eq 0 ]; then set -- run; fi
exec "$PYTHON" -m planner "$@"
