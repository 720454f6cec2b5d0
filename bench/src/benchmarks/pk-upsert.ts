import { initArrowCodecs } from '@sluice/core/arrow'
import type { Benchmark } from '../harness.js'
import { runKvUpserts, runRawRocksPuts, type UpsertWorkload, upsertWorkload } from '../support/kv-upsert.js'

const ROWS = 200_000
const BATCH_ROWS = 1000

/**
 * Issue #4 benchmark (b): upserts/s of new keys with ~100-byte values (default merge engine, ZSTD
 * changelog, 1000-row KV batches) through a KvTablet in this process, against the same keys and
 * value bytes put into RocksDB in 1000-row write batches. Target: ≥ 0.3× the raw puts.
 */
export const pkUpsert: Benchmark<UpsertWorkload> = {
  name: 'pk-upsert',
  description: `Upserts/s of ${ROWS.toLocaleString('en-US')} new keys (BIGINT key, ~100-byte STRING value, default merge engine, ${BATCH_ROWS}-row KV batches) through a KvTablet: merge against the pre-write buffer and RocksDB, ZSTD Arrow changelog appended to a LogTablet, flush to RocksDB at each high watermark (one replica; fresh directory per run) vs raw RocksDB write batches of the same keys and value bytes in the same process.`,
  unit: 'rows/s',
  better: 'higher',
  target: { ratio: 0.3, note: 'issue #4 (b): ≥ 30% of raw RocksDB batch puts' },
  runs: 5,
  async setup() {
    await initArrowCodecs()
    return upsertWorkload(ROWS, BATCH_ROWS)
  },
  subject: {
    name: 'KvTablet upserts',
    async run(w) {
      const { seconds } = await runKvUpserts(w)
      return { value: w.rows / seconds, extra: { 'µs/row': (seconds * 1e6) / w.rows } }
    },
  },
  baseline: {
    name: 'raw RocksDB batch puts',
    async run(w) {
      const { seconds } = await runRawRocksPuts(w)
      return { value: w.rows / seconds, extra: { 'µs/row': (seconds * 1e6) / w.rows } }
    },
  },
}
