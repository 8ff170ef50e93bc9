#!/usr/bin/env bash
# Serves the web page (scripts/build_web.sh builds it) on loopback:
#   scripts/serve_web.sh [PORT] [MODEL.gguf ...]
# Each model given is offered beside the page as models/<its file name>, so
# the page's URL field can load it (same origin).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${1:-8000}
shift || true
SITE=${WGRT_WEB_BUILD_DIR:-build-web}/site
[ -f "$SITE/wgrt_engine.wasm" ] || { echo "serve_web.sh: $SITE is not built: run scripts/build_web.sh" >&2; exit 1; }
mkdir -p "$SITE/models"
for model in "$@"; do ln -sf "$(realpath "$model")" "$SITE/models/$(basename "$model")"; done
echo "open http://127.0.0.1:$PORT/ in a browser with WebGPU"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$SITE"
