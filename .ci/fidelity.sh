#!/usr/bin/env bash
# The fidelity suite: MetaStore/BlobStore contracts against in-process dynalite, s3rver (child
# process) and moto_server, and the failover tests of test/fault with the cluster's metadata on
# moto_server. Installs moto into .ci/.venv when it is missing.
# CI sets SLUICE_REQUIRE_MOTO=1 so that a moto that cannot start fails the suite instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

MOTO_VERSION=5.2.5
VENV=.ci/.venv

if [ ! -x "$VENV/bin/moto_server" ]; then
  if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
  fi
  "$VENV/bin/pip" install --quiet "moto[server]==$MOTO_VERSION"
fi

# The failover tests start the compiled servers (a no-op when the build is current).
npx tsc -b

exec npx vitest run --config test/fidelity.vitest.config.ts "$@"
