import { defineConfig } from 'vitest/config'
import { peerAvailable } from '../core/src/testing/peers.js'

// The compatibility suite: the official Fluss Java client (test/compat/java, built with Maven) and
// Python client (pyfluss in .ci/.venv) and our SDK against a LocalCluster of the compiled services.
// Build first: `npx tsc -b` and the Maven project (see test/compat/README.md). Files run one at a
// time, each with its own cluster.
//
// Tests run on TypeScript sources through the `sluice-src` export condition, as in the root config.
const conditions = ['sluice-src', 'node']

// Without the peers (and without SLUICE_REQUIRE_PEERS=1) the suite skips with one line.
const peers = peerAvailable('the compatibility suite', { java: true, python: ['fluss', 'pyarrow'] })

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    name: 'compat',
    root: new URL('..', import.meta.url).pathname,
    include: peers ? ['test/compat/**/*.compat.test.ts'] : [],
    passWithNoTests: !peers,
    testTimeout: 300_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
})
