#!/usr/bin/env bash
# Render what finance prints and what a browser shows, so anyone can look: for each scenario (by default three
# examples: the default, a 405B crossover, benchmark logs with a Requests sheet), `planner run`, then every printed
# page of the workbook as LibreOffice prints it (xlsx → PDF → one PNG per page, named after its sheet) and the HTML
# summary in headless Chromium at 1,280 px wide and on A4 (PDF → PNG).
#
#   scripts/render.sh [-o DIR] [SCENARIO.yaml ...]        (DIR defaults to output/render)
#
# Needs soffice (libreoffice-calc-nogui), pdftoppm and pdftotext (poppler-utils) and chromium; as root with apt-get
# it installs what is missing. Uses ./.venv's Python when there is one, else python3 (run it from the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=output/render
if [ "${1:-}" = "-o" ]; then OUT=$2; shift 2; fi
if [ "$#" -eq 0 ]; then
    set -- examples/default.yaml examples/crossover-2-405b-global-app.yaml examples/goodput-2-benchmark-logs.yaml
fi
PYTHON=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}

missing=()
command -v soffice >/dev/null 2>&1 || missing+=(libreoffice-calc-nogui)
command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}"; }
    else
        echo "missing: ${missing[*]} (install them, or run as root where apt-get can)" >&2
        exit 1
    fi
fi

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
# LibreOffice prints the cached values as they are (no recalculation needed to look at the layout)
mkdir -p "$SCRATCH/profile"

for scenario in "$@"; do
    slug_dir="$SCRATCH/run"
    rm -rf "$slug_dir"
    "$PYTHON" -m planner run "$scenario" -o "$slug_dir" >/dev/null
    xlsx=$(ls "$slug_dir"/*.xlsx)
    slug=$(basename "$xlsx" .xlsx)
    rm -rf "${OUT:?}/$slug"
    mkdir -p "$OUT/$slug"
    soffice --headless --norestore --nolockcheck -env:UserInstallation="file://$SCRATCH/profile" \
        --convert-to pdf --outdir "$SCRATCH" "$xlsx" >/dev/null 2>&1
    pdf="$SCRATCH/$slug.pdf"
    pages=$(pdfinfo "$pdf" | awk '/^Pages:/ {print $2}')
    # each page's header names its sheet (&A, on the right): name the PNG after it and its page within the sheet
    previous="" n=0
    for i in $(seq 1 "$pages"); do
        sheet=$(pdftotext -f "$i" -l "$i" -layout "$pdf" - | awk 'NF {print $NF; exit}' || true)
        sheet=${sheet:-page}
        if [ "$sheet" = "$previous" ]; then n=$((n + 1)); else n=1; previous=$sheet; fi
        pdftoppm -f "$i" -l "$i" -singlefile -r 90 -png "$pdf" "$OUT/$slug/$(printf '%02d' "$i")-$sheet-$n"
    done
    # how full each page is (its lowest text, header and footer aside): a page under a third full that is not its
    # sheet's last is reported
    pdftotext -bbox "$pdf" "$SCRATCH/bbox.html"
    "$PYTHON" - "$SCRATCH/bbox.html" "$slug" <<'PY'
import re, sys
pages = re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', open(sys.argv[1]).read(), re.S)
found = []
for width, height, body in pages:
    words = [(float(y0), float(y1), w) for y0, y1, w in
             re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', body)]
    sheet = words[0][2] if words else "?"
    top = min((y0 for y0, _, _ in words), default=0)
    footer = max((y0 for y0, _, w in words if w == "Page"), default=float(height))
    body_words = [y1 for y0, y1, w in words if y0 < footer - 1]
    rows = sorted(words, key=lambda w: w[0])
    found.append([max(body_words, default=top), top, footer])
names = []
for i, (width, height, body) in enumerate(pages):
    line = re.findall(r'>([^<]*)</word>', body)
    names.append(line[len(line) and next((j for j, w in enumerate(line) if w == "·"), 0) + 2] if line else "?")
for i, (lowest, top, footer) in enumerate(found):
    fill = (lowest - top) / max(footer - top, 1)
    last = i == len(found) - 1 or names[i + 1] != names[i]
    flag = "  <- under a third, not the sheet's last" if fill < 1 / 3 and not last else ""
    print(f"  page {i + 1:2d} {names[i]:10s} {fill:4.0%}{flag}")
PY
    html="$slug_dir/$slug.html"
    chrome=(chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
            --disable-sync --no-first-run --user-data-dir="$SCRATCH/chromium")
    # the page as a 1,280 px window shows it, in screens of 1,280 × 1,600 px (printed on pages of that size with the
    # screen's layout), and as it prints on A4
    sed 's#</head>#<style>@page { size: 1280px 1600px; margin: 0 } @media print { body { max-width: 180mm; margin: 2em auto; padding: 0 1em } }</style></head>#' \
        "$html" > "$SCRATCH/screen.html"
    "${chrome[@]}" --print-to-pdf="$SCRATCH/screen.pdf" --no-pdf-header-footer "file://$SCRATCH/screen.html" \
        >/dev/null 2>&1
    pdftoppm -r 96 -png "$SCRATCH/screen.pdf" "$OUT/$slug/html-1280"
    # a layout check: every table within the page and no cell's text wider than its cell, at 1,280 px and at
    # A4's 180 mm (680 px) of text width
    sed "s#</body>#<script src=\"file://$PWD/scripts/layout-check.js\"></script></body>#" "$html" > "$SCRATCH/check.html"
    for width in 1280 680; do
        "${chrome[@]}" --window-size=$width,2000 --dump-dom "file://$SCRATCH/check.html" 2>/dev/null \
            | sed -n '/<pre id="layout-check">/,/<\/pre>/p' | sed 's/<[^>]*>//g; s/&gt;/>/g; s/^/  html: /'
    done
    "${chrome[@]}" --print-to-pdf="$SCRATCH/html.pdf" --no-pdf-header-footer "file://$html" >/dev/null 2>&1
    pdftoppm -r 70 -png "$SCRATCH/html.pdf" "$OUT/$slug/html-a4"
    cp "$xlsx" "$slug_dir/$slug.html" "$OUT/$slug/"
    echo "$slug: $pages workbook pages, $(ls "$OUT/$slug"/html-a4-*.png | wc -l) HTML A4 pages → $OUT/$slug"
done
# the batch's index page of the same scenarios: its table within the page at both widths
"$PYTHON" -m planner batch "$@" -o "$SCRATCH/batch" >/dev/null 2>&1 || true
if [ -f "$SCRATCH/batch/index.html" ]; then
    sed "s#</body>#<script src=\"file://$PWD/scripts/layout-check.js\"></script></body>#" "$SCRATCH/batch/index.html" \
        > "$SCRATCH/batch/check.html"
    for width in 1280 1030; do  # 1,030 px: A4 landscape's 273 mm
        "${chrome[@]}" --window-size=$width,2000 --dump-dom "file://$SCRATCH/batch/check.html" 2>/dev/null \
            | sed -n '/<pre id="layout-check">/,/<\/pre>/p' | sed 's/<[^>]*>//g; s/&gt;/>/g; s/^/  index.html: /'
    done
    "${chrome[@]}" --print-to-pdf="$SCRATCH/index.pdf" --no-pdf-header-footer "file://$SCRATCH/batch/index.html" \
        >/dev/null 2>&1
    pdftoppm -r 70 -png "$SCRATCH/index.pdf" "$OUT/index-a4"
    echo "index.html → $OUT/index-a4-*.png"
fi
