#!/usr/bin/env bash
# test.sh installs what the tests need (scripts/setup.sh) and runs every test:
# unit and golden tests, the examples end to end with real MCP clients, the
# official conformance suite, and the views in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
go vet ./...
# Every tracked Go file is gofmt'd (bench/load and testdata included).
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change these files (run gofmt -w on them):" >&2
  echo "$unformatted" >&2
  exit 1
fi
# The load benchmark (bench/load) is its own module, so that mcpgen does not
# depend on the servers it is compared with; vet it so it keeps building.
(cd bench/load && go vet ./...)
# Compile every dependency once, up front: the end-to-end tests build
# connectors that import the runtime, the go-sdk and esbuild, and on a fresh
# machine the first of them would otherwise compile those while other test
# packages compete for the two cores.
go build ./...
go test -count=1 -timeout 45m ./... "$@"
