import { defineConfig } from 'vitest/config'

// Tests run on TypeScript sources: the `sluice-src` export condition maps every
// workspace import (`@sluice/core/...`) to `src/` instead of the compiled `dist/`. Vite adds
// import/require/default itself; listing `import` here would make CommonJS packages (dynalite's
// big.js) load their ES builds through Node's --conditions.
const conditions = ['sluice-src', 'node']

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'core/src/**/*.test.ts',
            'lake/src/**/*.test.ts',
            'client/src/**/*.test.ts',
            'services/*/src/**/*.test.ts',
            'functions/*/src/**/*.test.ts',
            'localstack/src/**/*.test.ts',
            'cli/src/**/*.test.ts',
            'bench/src/**/*.test.ts',
            'test/architecture/**/*.test.ts',
            // Unit tests of the suites' own models and checkers (no cluster).
            'test/**/*.unit.test.ts',
          ],
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'cdk',
          include: ['cdk/lib/**/*.test.ts', 'cdk/test/**/*.test.ts'],
          testTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'it',
          include: ['test/it/**/*.it.test.ts', 'test/fault/**/*.it.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
