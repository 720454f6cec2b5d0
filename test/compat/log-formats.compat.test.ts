import { Catalog } from '@sluice/core/control-plane'
import { describe, expect } from 'vitest'
import { waitUntil } from '../harness/wait.js'
import { Prng } from '../it/support/prng.js'
import type { Driver, LogRecordOut } from './drivers/driver.js'
import type { ProcessDriver } from './drivers/process-driver.js'
import { rowOf } from './expect-log.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'
import {
  driverOps,
  ENGINE_PROPERTIES,
  expectedLog,
  MODEL_COLUMNS,
  type ModelEngine,
  type ModelOp,
  randomBatches,
  sentBatches,
} from './kv-model.js'

/**
 * Issue 16, items 1 and 2: the changelog of primary-key tables in both log formats, ARROW and
 * COMPACTED, read by the official Java client (and pyfluss, which reads ARROW only, as against
 * Fluss) with Fluss's offsets: every PutKv batch that changes nothing (a delete of an absent key,
 * a first_row update, a lower version, an ignored delete) takes exactly one offset, as an empty
 * batch the readers skip.
 */

const { env, apis, db } = await compatSuite('formats', ['PUT_KV', 'LOOKUP'])
const kvIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP'])

type Format = 'ARROW' | 'COMPACTED'
const FORMATS: readonly Format[] = ['ARROW', 'COMPACTED']
const formatProperties = (format: Format): Record<string, string> =>
  format === 'ARROW' ? {} : { 'table.log.format': 'COMPACTED', 'table.kv.format': 'COMPACTED' }

const up = (id: number, ver: number | null, v: string): ModelOp => ({ op: 'upsert', id, ver, v })
const del = (id: number): ModelOp => ({ op: 'delete', id, ver: null, v: '' })
const m = (...values: (string | number | null)[]) => rowOf(MODEL_COLUMNS, values)

/** What a reader returns, in offset order and without the bucket (single-bucket tables). */
const byOffset = (records: readonly LogRecordOut[]) =>
  [...records]
    .sort((a, b) => a.offset - b.offset)
    .map(r => ({ offset: r.offset, change: r.change, row: r.row }))

/** The readers of a format: pyfluss cannot scan COMPACTED logs ("Unknown log format"), on Fluss too. */
const readersOf = (format: Format): Driver[] => (format === 'ARROW' ? [env.java, env.python] : [env.java])

/**
 * Creates a one-bucket table, writes the batches through the Java client (a flush after each), and
 * checks that every reader sees the model's records at the model's offsets, and the log end offset.
 * The model follows the PutKv batches the client really sent (`sentBatches`, from the log end
 * offset acknowledged for each op): under load the Java client may send the first ops of a batch
 * before the rest, and a batch without changes that becomes two takes two offsets.
 */
async function writeAndCheck(
  table: string,
  engine: ModelEngine,
  format: Format,
  batches: readonly (readonly ModelOp[])[],
  writer: ProcessDriver = env.java,
): Promise<ReturnType<typeof expectedLog>> {
  const properties = { ...ENGINE_PROPERTIES[engine], ...formatProperties(format) }
  await env.java.createTable(db, table, {
    columns: MODEL_COLUMNS,
    primaryKey: ['id'],
    buckets: 1,
    properties,
  })
  const logEndOffsets = await writer.upsertWithOffsets(db, table, driverOps(batches))
  const sent = sentBatches(batches, logEndOffsets)
  const expected = expectedLog(engine, sent)
  const acknowledged = sent.flatMap((batch, i) => batch.map(() => expected.batchEnds[i]))
  expect(logEndOffsets, 'the log end offset acknowledged for each op').toEqual(acknowledged)
  for (const reader of readersOf(format)) {
    const read = await reader.changelog(db, table, expected.records.length)
    expect(byOffset(read), `${reader.name} reads ${table}`).toEqual(expected.records)
  }
  expect(await env.java.offsets(db, table, 'latest')).toEqual({ 0: expected.logEndOffset })
  return expected
}

describe('COMPACTED log format', () => {
  kvIt(
    'Java reads +I, -U, +U, -D in order with their offsets; Java and Python write and look up',
    async () => {
      const table = 'compacted'
      const properties = { ...formatProperties('COMPACTED'), 'table.replication.factor': '3' }
      await env.java.createTable(db, table, {
        columns: MODEL_COLUMNS,
        primaryKey: ['id'],
        buckets: 1,
        properties,
      })
      await env.java.upsert(db, table, [
        { op: 'upsert', row: m(1, 1, 'a') },
        { op: 'upsert', row: m(2, null, 'b') },
        { op: 'flush' },
        { op: 'upsert', row: m(1, 2, 'c') },
        { op: 'flush' },
        { op: 'delete', row: m(2, null, null) },
        { op: 'flush' },
        { op: 'delete', row: m(9, null, null) },
      ])
      await env.python.upsert(db, table, [{ op: 'upsert', row: m(3, 3, 'd') }])
      const expected = [
        { offset: 0, change: '+I', row: m(1, 1, 'a') },
        { offset: 1, change: '+I', row: m(2, null, 'b') },
        { offset: 2, change: '-U', row: m(1, 1, 'a') },
        { offset: 3, change: '+U', row: m(1, 2, 'c') },
        { offset: 4, change: '-D', row: m(2, null, 'b') },
        // offset 5: the delete of the absent key 9, an empty batch
        { offset: 6, change: '+I', row: m(3, 3, 'd') },
      ]
      expect(byOffset(await env.java.changelog(db, table, expected.length))).toEqual(expected)
      expect(await env.java.offsets(db, table, 'latest')).toEqual({ 0: 7 })
      const keys = [['1'], ['2'], ['3']]
      const state = [m(1, 2, 'c'), null, m(3, 3, 'd')]
      for (const reader of [env.java, env.python]) expect(await reader.lookup(db, table, keys)).toEqual(state)

      // The leader dies: the new one rebuilds its store from the COMPACTED changelog.
      const leader = await leaderOf(table)
      await env.cluster.killTabletServer(leader)
      try {
        await waitUntil(async () => (await leaderOf(table).catch(() => leader)) !== leader, {
          timeoutMs: 60_000,
          what: 'a new leader of the COMPACTED bucket',
        })
        // Clients learn the new leader from the metadata they refresh; until then lookups fail.
        const found = await waitUntil(() => env.java.lookup(db, table, keys).catch(() => undefined), {
          timeoutMs: 60_000,
          what: 'a lookup served by the new leader',
        })
        expect(found).toEqual(state)
        await env.java.upsert(db, table, [{ op: 'upsert', row: m(1, 4, 'e') }])
        const after = [
          ...expected,
          { offset: 7, change: '-U', row: m(1, 2, 'c') },
          { offset: 8, change: '+U', row: m(1, 4, 'e') },
        ]
        await env.cluster.startTabletServer(leader)
        // The Java scanner connects to every server the metadata lists; back with all three.
        const read = await waitUntil(
          () => env.java.changelog(db, table, after.length).catch(() => undefined),
          {
            timeoutMs: 60_000,
            what: 'the changelog read after the failover',
          },
        )
        expect(byOffset(read)).toEqual(after)
      } finally {
        if (!env.cluster.tablet(leader).running) await env.cluster.startTabletServer(leader)
      }
    },
  )
})

describe('log tables in the row formats', () => {
  for (const format of ['COMPACTED', 'INDEXED'] as const) {
    kvIt(`a ${format} log table: Java appends and reads the rows back as +A at dense offsets`, async () => {
      const table = `log_${format.toLowerCase()}`
      const properties = { 'table.log.format': format }
      await env.java.createTable(db, table, { columns: MODEL_COLUMNS, buckets: 1, properties })
      const rows = [m(1, 1, 'a'), m(2, null, null), m(3, 3, 'c')]
      await env.java.append(db, table, rows)
      const read = byOffset(await env.java.changelog(db, table, rows.length))
      expect(read).toEqual(rows.map((row, offset) => ({ offset, change: '+A', row })))
    })
  }
})

describe('writes without changes take one offset each (empty batches)', () => {
  const cases: [string, ModelEngine, ModelOp[][]][] = [
    ['delete of an absent key', 'default', [[up(1, 1, 'a')], [del(5)], [del(6), del(7)], [up(2, 1, 'b')]]],
    [
      'first_row: a later upsert, an ignored delete',
      'first_row',
      [[up(1, 1, 'a')], [up(1, 2, 'b')], [del(1)], [up(2, 1, 'c')]],
    ],
    [
      'versioned: a lower version, an ignored delete',
      'versioned',
      [[up(1, 5, 'a')], [up(1, 3, 'b')], [del(1)], [up(1, 5, 'c')]],
    ],
    ['WAL image: a delete of an absent key', 'default-wal', [[up(1, 1, 'a')], [del(4)], [up(1, 2, 'b')]]],
  ]
  for (const format of FORMATS) {
    for (const [what, engine, batches] of cases) {
      kvIt(
        `${format}, ${what}: readers skip it; a scan from its offset starts at the next record`,
        async () => {
          const table = `empty_${format}_${engine}`.toLowerCase().replace(/-/g, '_')
          const expected = await writeAndCheck(table, engine, format, batches)
          expect(expected.emptyBatches.length).toBeGreaterThan(0)
          const empty = expected.emptyBatches[0]
          const next = expected.records.find(r => r.offset > empty)?.offset
          const scan = await env.java.scanFrom(db, table, 0, empty)
          expect([scan.firstOffset, scan.nextOffset]).toEqual([next, expected.logEndOffset])
        },
      )
    }
  }
})

/**
 * The property: random sequences of writes that do and do not produce change records, for each
 * engine and format, read back with the model's offsets. SLUICE_COMPAT_SEED replays a sequence.
 */
describe('property: random write sequences read back by the Java client with the right offsets', () => {
  const baseSeed = Number(process.env.SLUICE_COMPAT_SEED ?? Date.now() % 1_000_000)
  const engines: ModelEngine[] = ['default', 'default-wal', 'first_row', 'versioned']
  let n = 0
  for (const format of FORMATS) {
    for (const engine of engines) {
      const seed = baseSeed + n++
      kvIt(`${format}, ${engine} (seed ${seed})`, async () => {
        const batches = randomBatches(new Prng(seed), 24)
        await writeAndCheck(
          `random_${format}_${engine}`.toLowerCase().replace(/-/g, '_'),
          engine,
          format,
          batches,
        )
      })
    }
  }
})

/**
 * With a batch timeout far below the time between the Java client's calls, the client sends the
 * first ops of a batch before the rest arrive (as it may under load with the default 100 ms, when a
 * fresh JVM loads the classes of its first delete): the log holds each part at its own offsets, and
 * a part without changes takes an offset of its own. Seed 953132 starts with an upsert and a delete
 * of an absent key in one batch.
 */
describe('a batch the Java client sends in parts', () => {
  kvIt('ARROW, default-wal (seed 953132), batch timeout 1 ms: each part at its own offsets', async () => {
    const writer = env.java.withClientConf({ ...env.java.clientConf, 'client.writer.batch-timeout': '1ms' })
    await writeAndCheck(
      'parts_arrow_default_wal',
      'default-wal',
      'ARROW',
      randomBatches(new Prng(953132), 24),
      writer,
    )
  })
})

/** The server leading bucket 0 of a table, from the metadata store. */
async function leaderOf(table: string): Promise<number> {
  const store = env.cluster.aws.metaStore()
  try {
    const catalog = new Catalog(store)
    const { tableId } = await catalog.getTableOrThrow({ databaseName: db, tableName: table })
    const bucket = await catalog.getBucket({ tableId, bucket: 0 })
    const leader = bucket?.leaderAndIsr.leader
    if (leader === null || leader === undefined) throw new Error(`${table} has no leader`)
    return leader
  } finally {
    await store.close()
  }
}
