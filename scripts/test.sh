#!/usr/bin/env bash
# test.sh installs what the tests need (scripts/setup.sh) and runs every test:
# unit and golden tests, the examples end to end with real MCP clients, the
# official conformance suite, and the views in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
go vet ./...
go test -count=1 -timeout 45m ./... "$@"
