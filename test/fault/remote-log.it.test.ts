import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Connection } from '@sluice/client'
import { type TablePath, tablePath } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { peerAvailable } from '@sluice/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromCanonical } from '../compat/canonical.js'
import { allTypesLogTable, datasetRow } from '../compat/dataset.js'
import type { VerifyResult } from '../compat/drivers/driver.js'
import { ProcessDriver } from '../compat/drivers/process-driver.js'
import { pythonCommand } from '../compat/drivers/process-runner.js'
import { SdkDriver } from '../compat/drivers/sdk-driver.js'
import { uniqueName, waitUntil } from '../harness/index.js'
import { alterTableProperties } from '../it/support/alter-table.js'
import { connect, startReadyCluster, type TestCluster, waitForLeaders } from '../it/support/cluster.js'
import { countOf, offsetGaps, scanAll } from '../it/support/scan.js'
import {
  localSegmentBaseOffsets,
  remoteLogObjects,
  remoteSegmentBaseOffsets,
  tableDir,
} from '../it/support/storage-files.js'

/**
 * Remote log storage across processes (issue 7): small segments roll, sealed ones are uploaded to
 * the blob store and deleted locally; readers from the earliest offset (our SDK, transparently, and
 * pyfluss, which downloads the remote segments itself from `remote.data.dir`) get every row exactly;
 * a short `table.log.ttl` then deletes the remote segments and the earliest offset advances.
 */
const BUCKETS = 2
const ROWS = 30_000
const TABLET_ID = 1
const SERVER_CONFIG = {
  'log.segment.file-size': '256kb',
  'remote.log.task-interval-duration': '1s',
  'remote.log.task-max-upload-segments': '100',
}
/** Batches well below a segment, so that segments hold many batches. */
const WRITER_CONFIG = { 'client.writer.batch-size': '64kb', 'client.writer.batch-timeout': '20ms' }
/** Sealed segments each bucket has at least (about 30,000 rows of ~250 bytes over 256 KiB segments). */
const MIN_REMOTE_SEGMENTS = 5
const WAIT_MS = 30_000
const PYFLUSS_READ = fileURLToPath(new URL('../it/support/pyfluss_read.py', import.meta.url))

const SUITE = 'remote log segments: upload, local deletion, remote reads, TTL'

describe.skipIf(!peerAvailable(SUITE, { python: ['fluss', 'pyarrow'] }))(SUITE, () => {
  let tc: TestCluster
  let admin: Connection
  let sdk: SdkDriver
  let python: ProcessDriver
  /** pyfluss subscribed at explicit start offsets (test/it/support/pyfluss_read.py). */
  let pyfluss: ProcessDriver
  let fromSdk: VerifyResult | undefined
  let path: TablePath
  let tableId: number

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 1,
      prefix: 'sluice-remote-log',
      serverConfig: SERVER_CONFIG,
    })
    admin = await connect(tc.cluster)
    sdk = await SdkDriver.connect(tc.cluster.bootstrapServers)
    const scratch = join(tc.dataDir, 'driver-files')
    mkdirSync(scratch, { recursive: true })
    python = new ProcessDriver('python', pythonCommand(), tc.cluster.bootstrapServers, scratch)
    const pyflussRead = { program: pythonCommand().program, prefix: [PYFLUSS_READ] }
    pyfluss = new ProcessDriver('pyfluss-read', pyflussRead, tc.cluster.bootstrapServers, scratch)
    const db = uniqueName('remote_db')
    await sdk.createDatabase(db)
    path = tablePath(db, 'tiered')
    await sdk.createTable(db, path.tableName, {
      ...allTypesLogTable(BUCKETS),
      properties: { 'table.log.tiered.local-segments': '1' },
    })
    await waitForLeaders(admin, path)
    tableId = (await admin.getAdmin().getTableInfo(path)).tableId
  })

  afterAll(async () => {
    await sdk?.close().catch(() => undefined)
    await admin?.close().catch(() => undefined)
    await tc?.stop()
  })

  const logDir = (bucket: number) => join(tableDir(tc.cluster, TABLET_ID, path, tableId), `log-${bucket}`)
  const buckets = Array.from({ length: BUCKETS }, (_, b) => b)

  it('sealed segments go to the blob store, local copies go, and SDK and pyfluss read every row from offset 0', async () => {
    await writeDataset(tc, path, ROWS)
    const tiered = () =>
      buckets.every(
        b =>
          remoteSegmentBaseOffsets(tc.cluster, tableId, b).length >= MIN_REMOTE_SEGMENTS &&
          localSegmentBaseOffsets(logDir(b)).length === 1,
      )
    await waitUntil(tiered, {
      timeoutMs: WAIT_MS,
      intervalMs: 200,
      what: 'uploaded and locally deleted segments',
    })
    const latest = await admin.getAdmin().listOffsets(path, buckets, 'latest')
    for (const b of buckets) {
      const remote = remoteSegmentBaseOffsets(tc.cluster, tableId, b)
      const [localBase] = localSegmentBaseOffsets(logDir(b))
      // Remote segments start at 0 and reach the one local (active) segment, which is all that is left.
      expect(remote[0], `bucket ${b}: first remote segment`).toBe(0)
      expect(localBase, `bucket ${b}: the local segment starts after the remote ones`).toBeGreaterThan(
        remote.at(-1)!,
      )
      expect(localBase).toBeLessThanOrEqual(latest.get(b)!)
    }
    expect(await admin.getAdmin().listOffsets(path, buckets, 'earliest')).toEqual(
      new Map(buckets.map(b => [b, 0])),
    )

    fromSdk = await sdk.verify(path.databaseName, path.tableName, ROWS)
    expectEveryRow(fromSdk)
    for (const b of buckets) expect(fromSdk.buckets[String(b)]?.latest).toBe(latest.get(b))
    // pyfluss subscribed at the LIST_OFFSETS earliest offsets (0): the same offsets and the same
    // ids in the same order in every bucket, the remote part downloaded by pyfluss itself.
    const fromPython = await pyfluss.check([path.databaseName, path.tableName, String(ROWS)])
    expectEveryRow(fromPython as unknown as VerifyResult)
    expect(fromPython.buckets).toEqual(fromSdk.buckets)
  })

  it('pyfluss subscribed at EARLIEST_OFFSET (-2, FETCH_FROM_EARLIEST_OFFSET) reads the tiered rows too', async () => {
    // The official clients send -2 as the fetch offset; Fluss starts such a fetch at the log start
    // offset including remote storage (LogTablet.logStartOffset = min(local, remote, lake)).
    const fromPython = await python.check(['verify', path.databaseName, path.tableName, String(ROWS)])
    expectEveryRow(fromPython as unknown as VerifyResult)
    expect(fromPython.buckets).toEqual(fromSdk?.buckets)
  })

  it('a short table.log.ttl deletes the remote segments and moves the earliest offset', async () => {
    const latest = await admin.getAdmin().listOffsets(path, buckets, 'latest')
    await alterTableProperties(tc.cluster, path, { 'table.log.ttl': '1s' })
    await waitUntil(
      async () => (await admin.getAdmin().getTableInfo(path)).properties['table.log.ttl'] === '1s',
      {
        timeoutMs: WAIT_MS,
        what: 'the altered table.log.ttl in the table info',
      },
    )
    // A tablet server reads a table's options when it opens the replica (as Fluss 0.9.1 does): the
    // ALTER applies once the server opens it again.
    await tc.cluster.restartTabletServer(TABLET_ID)
    await waitForLeaders(admin, path, WAIT_MS)
    await waitUntil(() => buckets.every(b => remoteSegmentBaseOffsets(tc.cluster, tableId, b).length === 0), {
      timeoutMs: WAIT_MS,
      intervalMs: 200,
      what: 'the TTL to delete the remote segments',
    })
    const earliest = await admin.getAdmin().listOffsets(path, buckets, 'earliest')
    for (const b of buckets) {
      const [localBase] = localSegmentBaseOffsets(logDir(b))
      expect(earliest.get(b), `bucket ${b}: earliest offset`).toBeGreaterThan(0)
      expect(earliest.get(b), `bucket ${b}: earliest offset`).toBeGreaterThanOrEqual(localBase!)
    }
    expect(remoteLogObjects(tc.cluster, tableId).filter(f => /\.(log|index|timeindex)$/.test(f))).toEqual([])
    // What is left reads from the new earliest offset, densely, up to the unchanged latest offset.
    const expected = buckets.reduce((n, b) => n + latest.get(b)! - earliest.get(b)!, 0)
    const records = await scanAll(await admin.getTable(path), expected, { timeoutMs: WAIT_MS })
    expect(offsetGaps(records, earliest)).toEqual([])
    expect(countOf(records)).toBe(expected)
  })
})

/** Appends dataset rows 0..n-1 (acks=all) through a connection with small batches. */
async function writeDataset(tc: TestCluster, path: TablePath, n: number): Promise<void> {
  const connection = await connect(tc.cluster, WRITER_CONFIG)
  try {
    const table = await connection.getTable(path)
    const fields = table.getTableInfo().rowType.fields
    const writer = table.newAppend().createWriter()
    for (let i = 0; i < n; i++) {
      const row: Row = datasetRow(
        i,
        0,
        fields.map(f => f.name),
      ).map((v, k) => fromCanonical(v, fields[k]!.type))
      const wait = writer.append(row)
      if (wait) await wait
    }
    await writer.close()
  } finally {
    await connection.close()
  }
}

function expectEveryRow(result: VerifyResult): void {
  expect(result.mismatches).toEqual([])
  expect(result.ok).toBe(true)
  expect(result.rows).toBe(ROWS)
  for (const summary of Object.values(result.buckets)) {
    expect(summary.earliest).toBe(0)
    expect(summary.records).toBe(summary.latest)
  }
}
