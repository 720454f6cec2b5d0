import { initArrowCodecs } from '@sluice/core/arrow'
import type { Benchmark, Sample } from '../harness.js'
import {
  closeRecoveryBucket,
  prepareRecoveryBucket,
  type RecoveryBucket,
  recoverBucket,
} from '../support/kv-recovery.js'

const KEYS = 1_000_000
const VALUE_BYTES = 100

async function recover(b: RecoveryBucket, fromSnapshot: boolean): Promise<Sample> {
  const report = await recoverBucket(b, fromSnapshot)
  return {
    value: report.durationMs / 1000,
    extra: {
      'replayed records': report.replayedRecords,
      ...(fromSnapshot
        ? {
            'snapshot MB': b.snapshotBytes / 1e6,
            'load s (setup)': b.loadMs / 1000,
            'snapshot s (setup)': b.snapshotMs / 1000,
          }
        : { 'changelog MB': b.logBytes / 1e6 }),
    },
  }
}

/**
 * Issue #7 benchmark: recovery time of a primary-key bucket holding 1,000,000 keys of 100 bytes
 * when a new leader takes over: download of the newest KV snapshot (filesystem BlobStore) plus
 * replay of the changelog tail written after it (1% of the keys updated), against replaying the
 * whole changelog, in the same process on the same data. Target: ≤ 0.2× the full replay (and ≤ 5 s).
 */
export const kvRecovery: Benchmark<RecoveryBucket> = {
  name: 'kv-recovery',
  description: `Recovery time of one primary-key bucket of ${KEYS.toLocaleString('en-US')} keys (STRING key, ${VALUE_BYTES}-byte BYTES value, loaded through a KvTablet with its changelog in a LogTablet) in a new leader: restore the newest KV snapshot from a filesystem BlobStore and replay the tail (1% of the keys updated after the snapshot) vs replay the whole changelog; each recovered store is checked on a sample of keys (not timed) and deleted.`,
  unit: 's',
  better: 'lower',
  target: { ratio: 0.2, note: 'issue #7: snapshot + tail ≤ 20% of a full replay, and ≤ 5 s' },
  runs: 3,
  async setup() {
    await initArrowCodecs()
    return prepareRecoveryBucket(KEYS, VALUE_BYTES)
  },
  teardown: closeRecoveryBucket,
  subject: { name: 'snapshot + tail', run: b => recover(b, true) },
  baseline: { name: 'full changelog replay', run: b => recover(b, false) },
}
