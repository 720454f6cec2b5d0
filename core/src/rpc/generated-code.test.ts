import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { generate, RUNTIME_PATH, TYPES_PATH } from '../../scripts/gen-proto.mjs'

describe('generated protobuf code', () => {
  it('matches core/proto/fluss_api.proto (run `node core/scripts/gen-proto.mjs` after editing it)', async () => {
    const { runtime, types } = await generate()
    expect(readFileSync(RUNTIME_PATH, 'utf8') === runtime, 'fluss-api-runtime.ts is stale').toBe(true)
    expect(readFileSync(TYPES_PATH, 'utf8') === types, 'fluss-api.ts is stale').toBe(true)
  })
})
