import { defineConfig } from 'vitest/config'

// The compatibility suite: the official Fluss Java client (test/compat/java, built with Maven) and
// Python client (pyfluss in .ci/.venv) and our SDK against a LocalCluster of the compiled services.
// Build first: `npx tsc -b` and the Maven project (see test/compat/README.md). Files run one at a
// time, each with its own cluster.
//
// Tests run on TypeScript sources through the `sluice-src` export condition, as in the root config.
const conditions = ['sluice-src', 'node']

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    name: 'compat',
    root: new URL('..', import.meta.url).pathname,
    include: ['test/compat/**/*.compat.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
})
