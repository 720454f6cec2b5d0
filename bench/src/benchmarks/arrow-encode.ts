import { ArrowBatchWriter, initArrowCodecs } from '@sluice/core/arrow'
import type { Row } from '@sluice/core/row'
import { BENCH_ROW_TYPE, benchRows } from '@sluice/core/testing'
import type { Benchmark } from '../harness.js'

interface Ctx {
  rows: Row[]
  objects: Record<string, unknown>[]
}

const ROWS = 50_000
const BATCH_ROWS = 4096

/**
 * Issue #3 benchmark (b), encoding part: the SDK's row-to-Arrow encoding of ~1 KiB rows (15 mixed
 * columns, uncompressed as the client's batches before compression) against JSON.stringify of the
 * same rows. Target ≥ 0.6× (performance-notes G3).
 */
export const arrowEncode: Benchmark<Ctx> = {
  name: 'arrow-encode',
  description:
    'Rows/s encoding ~1 KiB rows into Arrow RecordBatch messages (ArrowBatchWriter, 4096-row batches, no compression) vs JSON.stringify of the same rows, one core.',
  unit: 'rows/s',
  better: 'higher',
  target: { ratio: 0.6, note: 'G3: ≥ 0.6× JSON.stringify' },
  runs: 7,
  async setup() {
    await initArrowCodecs()
    return benchRows(ROWS)
  },
  subject: {
    name: 'ArrowBatchWriter',
    async run({ rows }) {
      const w = new ArrowBatchWriter(BENCH_ROW_TYPE, { initialCapacityRows: BATCH_ROWS })
      let bytes = 0
      const t0 = performance.now()
      for (let i = 0; i < rows.length; i++) {
        w.addRow(rows[i])
        if (w.recordCount === BATCH_ROWS) {
          bytes += w.finish().byteLength
          w.reset()
        }
      }
      if (w.recordCount > 0) bytes += w.finish().byteLength
      const s = (performance.now() - t0) / 1000
      return { value: rows.length / s, extra: { 'MB/s': bytes / 1e6 / s } }
    },
  },
  baseline: {
    name: 'JSON.stringify',
    async run({ objects }) {
      let bytes = 0
      const t0 = performance.now()
      for (let i = 0; i < objects.length; i++) bytes += JSON.stringify(objects[i]).length
      const s = (performance.now() - t0) / 1000
      return { value: objects.length / s, extra: { 'MB/s': bytes / 1e6 / s } }
    },
  },
}
