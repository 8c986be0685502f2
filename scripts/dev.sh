#!/usr/bin/env bash
# dev.sh builds mcpgen into bin/ and serves an example connector with
# `mcpgen dev`: Streamable HTTP at http://127.0.0.1:8080/mcp, rebuilt on every
# change to its Go files or views while a connected host's session stays
# alive. It needs only Go (and npm for examples with views); modules come
# from the proxy.
#
#   ./scripts/dev.sh                        serve examples/notes
#   ./scripts/dev.sh examples/everything    serve another example
#   ADDR=127.0.0.1:9000 ./scripts/dev.sh    serve another address
set -euo pipefail
cd "$(dirname "$0")/.."

example=${1:-examples/notes}
addr=${ADDR:-127.0.0.1:8080}

log() { printf '\033[1mdev:\033[0m %s\n' "$*" >&2; }

if [ ! -f "$example/go.mod" ]; then
  echo "dev.sh: $example is not a connector (no go.mod); try one of: $(ls -d examples/*/ | tr '\n' ' ')" >&2
  exit 2
fi

log "building mcpgen into bin/mcpgen"
go build -o bin/mcpgen ./cmd/mcpgen

if [ -f "$example/package.json" ] && [ ! -d "$example/node_modules" ]; then
  log "npm install in $example (React for its views)"
  (cd "$example" && npm install --no-audit --no-fund --loglevel=error)
fi

log "serving $example at http://$addr/mcp (Ctrl-C to stop)"
exec bin/mcpgen dev "$example" --addr "$addr"
