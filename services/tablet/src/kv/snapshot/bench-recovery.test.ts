import { describe, expect, it } from 'vitest'
import { benchRecovery } from './bench-recovery.js'

describe('benchRecovery', () => {
  it('recovers the same bucket from a snapshot plus tail and by full replay, both verified', async () => {
    const result = await benchRecovery({ keys: 3000, tailKeys: 100, batchRows: 500 })
    expect(result.snapshotRecovery).toMatchObject({
      path: 'snapshot',
      replayFromOffset: 3000,
      replayedRecords: 100,
    })
    expect(result.fullReplay).toMatchObject({
      path: 'full-replay',
      replayFromOffset: 0,
      replayedRecords: 3100,
    })
    expect(result.logEndOffset).toBe(3200)
    expect(result.snapshotFiles).toBeGreaterThanOrEqual(3)
    expect(result.ratio).toBeGreaterThan(0)
  })
})
