import type { Benchmark } from '../harness.js'
import {
  runTieringBenchBaseline,
  runTieringBenchSubject,
  type TieringBenchContext,
  tieringBenchSetup,
} from '../support/tiering.js'

const ROWS = 100_000

/**
 * Issue #8 benchmark: rows/s of one whole tiering round of a log table (uploaded ZSTD segments read
 * from an in-memory blob store, batches validated, Arrow passed through with the system columns,
 * parquet-wasm ZSTD, Iceberg commit, offsets recorded) against parquet-wasm writing the same rows
 * (system columns included) from a ready Arrow stream. Target: ≥ 0.6× the baseline.
 */
export const tiering: Benchmark<TieringBenchContext> = {
  name: 'tiering',
  description: `Rows/s of one tiering round of ${ROWS.toLocaleString('en-US')} ~1 KiB rows (15 columns; tiered ZSTD segments in an in-memory blob store → validated batches → Arrow + system columns → parquet-wasm ZSTD data file → Iceberg v2 commit → offsets recorded; in-memory lake and metastore) vs parquet-wasm (ZSTD) writing the same rows with the system columns from a ready uncompressed Arrow IPC stream.`,
  unit: 'rows/s',
  better: 'higher',
  target: { ratio: 0.6, note: 'issue #8: tiering throughput ≥ 60% of parquet-wasm writing the same rows' },
  runs: 5,
  setup: () => tieringBenchSetup(ROWS),
  subject: {
    name: 'tiering round',
    async run(ctx) {
      const r = await runTieringBenchSubject(ctx)
      return {
        value: r.rowsPerSec,
        extra: { 'Parquet MB': r.bytes / 1e6, 'segment MB read': ctx.segmentBytes / 1e6 },
      }
    },
  },
  baseline: {
    name: 'parquet-wasm writeParquet',
    async run(ctx) {
      const r = runTieringBenchBaseline(ctx)
      return { value: r.rowsPerSec, extra: { 'Parquet MB': r.bytes / 1e6 } }
    },
  },
}
