import { initArrowCodecs } from '@sluice/core/arrow'
import { describe, expect, it } from 'vitest'
import { closeRecoveryBucket, prepareRecoveryBucket, recoverBucket } from './kv-recovery.js'

describe('the kv-recovery benchmark bucket', () => {
  it('recovers the same bucket from a snapshot plus tail and by full replay, both verified', async () => {
    await initArrowCodecs()
    const bucket = await prepareRecoveryBucket(3000, 100, 100)
    try {
      expect(bucket.log.logEndOffset).toBe(3200)
      expect(bucket.snapshotBytes).toBeGreaterThan(0)
      expect(await recoverBucket(bucket, true)).toMatchObject({
        path: 'snapshot',
        replayFromOffset: 3000,
        replayedRecords: 100,
      })
      expect(await recoverBucket(bucket, false)).toMatchObject({
        path: 'full-replay',
        replayFromOffset: 0,
        replayedRecords: 3100,
      })
    } finally {
      await closeRecoveryBucket(bucket)
    }
  })
})
