#!/usr/bin/env bash
# The fidelity suite: MetaStore/BlobStore contracts against in-process dynalite, s3rver (child
# process) and moto_server, and the failover tests of test/fault with the cluster's metadata on
# moto_server. Installs the test peers (`npm run peers`) when moto is missing.
# CI sets SLUICE_REQUIRE_PEERS=1 so that a moto that cannot start fails the suite instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .ci/.venv/bin/moto_server ]; then
  npm run peers
fi

# The failover tests start the compiled servers (a no-op when the build is current).
npx tsc -b

exec npx vitest run --config test/fidelity.vitest.config.ts "$@"
