import { describe, expect, it } from 'vitest'
import { fileTimeMs, newSnapshotId, uuidV7 } from './ids.js'

describe('lake ids', () => {
  it('snapshot ids are positive, below 2^53 and avoid taken ids', () => {
    const taken = new Set<bigint>()
    for (let i = 0; i < 500; i++) {
      const id = newSnapshotId(taken)
      expect(id > 0n && id < 2n ** 53n).toBe(true)
      expect(taken.has(id)).toBe(false)
      taken.add(id)
    }
  })

  it('UUIDv7 names carry their creation time', () => {
    const uuid = uuidV7(1_700_000_000_123)
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(fileTimeMs(`data/__bucket=0/${uuid}.parquet`)).toBe(1_700_000_000_123)
    expect(fileTimeMs('00000-0-5bd6c5a1-2a57-4c44-9a1d-1d2d4f5b6c7d-00001.parquet')).toBeUndefined()
  })
})
