import { defineConfig } from 'vitest/config'

// The fidelity suite: the MetaStore/BlobStore contracts against every emulator that runs here
// (in-process dynalite, s3rver, moto_server). Run it with .ci/fidelity.sh.
//
// Tests run on TypeScript sources through the `sluice-src` export condition. Only `node` is added:
// `import` or `module` would make Node resolve CommonJS dependencies' require() calls to their ESM
// builds (vitest passes these conditions to Node as --conditions) and vite pick the AWS SDK's
// bundler-only `dist-es` build.
const conditions = ['sluice-src', 'node']

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['sluice-src'] } },
  test: {
    name: 'fidelity',
    root: new URL('..', import.meta.url).pathname,
    include: ['test/fidelity/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
})
