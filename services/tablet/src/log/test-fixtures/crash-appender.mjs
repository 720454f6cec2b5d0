// Child process for log-tablet-crash.test.ts: appends idempotent batches to a LogTablet as fast as
// it can and prints one line per acknowledged append, until the parent kills it with SIGKILL.
// argv: <bundle of services/tablet/src/log/index.ts and testBatch> <log directory>
// Writes to a pipe are synchronous on Linux, so a line the parent has read is an acknowledged append.
import { pathToFileURL } from 'node:url'

const [bundlePath, dir] = process.argv.slice(2)
const { LogTablet, testBatch } = await import(pathToFileURL(bundlePath).href)

const tablet = await LogTablet.open(dir, {
  segmentBytes: 4096,
  indexIntervalBytes: 256,
  indexBytes: 1024,
  writerExpirationMs: 3_600_000,
  highWatermarkCheckpointIntervalMs: 0,
  maxQueuedOperations: 100,
})
process.stdout.write(`open ${tablet.logEndOffset}\n`)
for (let seq = 0; ; seq++) {
  const batch = testBatch({
    recordCount: 1 + (seq % 3),
    writerId: 11,
    batchSequence: seq,
    payload: `payload-${seq}`,
  })
  const info = await tablet.appendAsLeader(batch)
  process.stdout.write(`ack ${seq} ${info.firstOffset} ${info.lastOffset}\n`)
}
