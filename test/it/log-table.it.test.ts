import type { Connection, Table } from '@sluice/client'
import { type FlussError, isFlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import { sleep } from '@sluice/core/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_TYPES_NAMES, allTypesDescriptor, allTypesRow, rowDifference } from './support/all-types.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from './support/cluster.js'
import { type BucketRecords, countOf, offsetGaps, scanAll } from './support/scan.js'

const ROWS = 100_000
const HALF = ROWS / 2
const BUCKETS = 4
const ALL_BUCKETS = Array.from({ length: BUCKETS }, (_, b) => b)

/** Appends rows [from, to) with backpressure, then flushes. */
async function appendRange(table: Table, from: number, to: number): Promise<void> {
  const writer = table.newAppend().createWriter()
  for (let i = from; i < to; i++) {
    const wait = writer.append(allTypesRow(i))
    if (wait) await wait
  }
  await writer.close()
}

/** Every problem with a full read: duplicates, unknown ids, gaps, value differences (first few). */
function readProblems(
  records: BucketRecords,
  columns: readonly string[],
  project: (i: number) => unknown[],
): string[] {
  const problems = offsetGaps(records)
  const seen = new Uint8Array(ROWS)
  const idAt = columns.indexOf('id')
  for (const [bucket, list] of records) {
    for (const r of list) {
      const id = Number(r.row[idAt])
      if (!(id >= 0 && id < ROWS))
        problems.push(`bucket ${bucket} offset ${r.offset}: unknown id ${r.row[idAt]}`)
      else if (seen[id]++ > 0) problems.push(`id ${id} read twice (bucket ${bucket} offset ${r.offset})`)
      else {
        const diff = rowDifference(project(id) as never, r.row, columns)
        if (diff !== undefined) problems.push(`id ${id} (bucket ${bucket} offset ${r.offset}): ${diff}`)
      }
      if (problems.length > 10) return problems
    }
  }
  return problems
}

async function expectFlussError(p: Promise<unknown>, name: string): Promise<FlussError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isFlussError(error), `expected FlussError ${name}, got ${String(error)}`).toBe(true)
  expect((error as FlussError).errorName).toBe(name)
  return error as FlussError
}

describe('log table through the SDK against a local cluster', () => {
  let tc: TestCluster | undefined
  let connection: Connection
  let database: string

  beforeAll(async () => {
    tc = await startReadyCluster({ tabletServers: 2, prefix: 'sluice-it-log' })
    // Round-robin spreads rows over every bucket; the sticky default may leave a bucket empty.
    connection = await connect(tc.cluster, { 'client.writer.bucket.no-key-assigner': 'ROUND_ROBIN' })
    database = await createDatabase(connection)
  })

  afterAll(async () => {
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  describe(`${ROWS} rows of every primitive type in ${BUCKETS} buckets`, () => {
    let path: TablePath
    let table: Table
    let beforeWriteMs: number
    let middleMs: number
    let afterWriteMs: number
    let full: BucketRecords

    beforeAll(async () => {
      path = await createTable(connection, database, allTypesDescriptor(BUCKETS), 'all_types')
      table = await connection.getTable(path)
      beforeWriteMs = Date.now()
      await sleep(5)
      await appendRange(table, 0, HALF)
      await sleep(20)
      middleMs = Date.now()
      await sleep(5)
      await appendRange(table, HALF, ROWS)
      await sleep(20)
      afterWriteMs = Date.now()
      full = await scanAll(table, ROWS)
    })

    it('reads every row back exactly once, values equal, offsets dense per bucket', () => {
      const problems = readProblems(full, ALL_TYPES_NAMES, allTypesRow)
      expect(problems).toEqual([])
      expect(countOf(full)).toBe(ROWS)
      expect(full.size).toBe(BUCKETS)
    })

    it('commit timestamps are non-decreasing per bucket and within the write window', () => {
      for (const list of full.values()) {
        for (let k = 1; k < list.length; k++)
          expect(list[k].timestamp).toBeGreaterThanOrEqual(list[k - 1].timestamp)
        expect(list[0].timestamp).toBeGreaterThanOrEqual(beforeWriteMs)
        expect(list[list.length - 1].timestamp).toBeLessThanOrEqual(afterWriteMs)
      }
    })

    it('reads a 2-of-N projection (reordered) with the same rows and offsets', async () => {
      const columns = ['c_string', 'id']
      const projected = await scanAll(table, ROWS, { columns })
      const indexes = columns.map(c => ALL_TYPES_NAMES.indexOf(c))
      const problems = readProblems(projected, columns, i => indexes.map(j => allTypesRow(i)[j]))
      expect(problems).toEqual([])
      expect(countOf(projected)).toBe(ROWS)
      for (const [bucket, list] of projected) {
        expect(list.map(r => r.offset)).toEqual(full.get(bucket)?.map(r => r.offset))
      }
    })

    it('lists earliest, latest and by-timestamp offsets', async () => {
      const admin = connection.getAdmin()
      const perBucket = new Map([...full].map(([b, list]) => [b, list.length]))
      const firstHalf = new Map(
        [...full].map(([b, list]) => [b, list.filter(r => Number(r.row[0]) < HALF).length]),
      )
      expect(await admin.listOffsets(path, ALL_BUCKETS, 'earliest')).toEqual(
        new Map(ALL_BUCKETS.map(b => [b, 0])),
      )
      expect(await admin.listOffsets(path, ALL_BUCKETS, 'latest')).toEqual(perBucket)
      expect(await admin.listOffsets(path, ALL_BUCKETS, { timestamp: beforeWriteMs })).toEqual(
        new Map(ALL_BUCKETS.map(b => [b, 0])),
      )
      expect(await admin.listOffsets(path, ALL_BUCKETS, { timestamp: middleMs })).toEqual(firstHalf)
      expect(await admin.listOffsets(path, ALL_BUCKETS, { timestamp: afterWriteMs })).toEqual(perBucket)
      await expectFlussError(
        admin.listOffsets(path, [0], { timestamp: Date.now() + 3_600_000 }),
        'INVALID_TIMESTAMP_EXCEPTION',
      )
    })
  })

  it('DDL errors carry their Fluss codes', async () => {
    const admin = connection.getAdmin()
    const missing = { databaseName: database, tableName: 'no_such_table' }
    const inMissingDb = { databaseName: 'no_such_database_x1', tableName: 't' }
    expect((await expectFlussError(admin.getTableInfo(missing), 'TABLE_NOT_EXIST')).code).toBe(7)
    expect((await expectFlussError(admin.dropTable(missing), 'TABLE_NOT_EXIST')).code).toBe(7)
    await admin.dropTable(missing, true)
    const notExistDb = await expectFlussError(
      admin.createTable(inMissingDb, allTypesDescriptor(1)),
      'DATABASE_NOT_EXIST',
    )
    expect(notExistDb.code).toBe(4)
    await expectFlussError(admin.listTables('no_such_database_x1'), 'DATABASE_NOT_EXIST')
    await expectFlussError(admin.dropDatabase('no_such_database_x1'), 'DATABASE_NOT_EXIST')
    expect((await expectFlussError(admin.createDatabase(database), 'DATABASE_ALREADY_EXIST')).code).toBe(6)
    await admin.createDatabase(database, undefined, true)
    const path = await createTable(connection, database, allTypesDescriptor(1), 'dup')
    expect(
      (await expectFlussError(admin.createTable(path, allTypesDescriptor(1)), 'TABLE_ALREADY_EXIST')).code,
    ).toBe(8)
    await admin.createTable(path, allTypesDescriptor(1), true)
    expect(await admin.tableExists(path)).toBe(true)
    expect(await admin.tableExists(missing)).toBe(false)
  })

  it('invalid table descriptors are rejected by the coordinator with their codes', async () => {
    const admin = connection.getAdmin()
    const path = { databaseName: database, tableName: 'invalid_descriptor' }
    const badFormat = allTypesDescriptor(1, { 'table.log.format': 'NOPE' })
    await expectFlussError(admin.createTable(path, badFormat), 'INVALID_CONFIG_EXCEPTION')
    const tooManyReplicas = allTypesDescriptor(1, { 'table.replication.factor': '5' })
    await expectFlussError(admin.createTable(path, tooManyReplicas), 'INVALID_REPLICATION_FACTOR')
    expect(await admin.tableExists(path)).toBe(false)
  })

  it.each(['0', '1', 'all'])('appends with acks=%s and every row becomes readable', async acks => {
    const path = await createTable(connection, database, allTypesDescriptor(2), `acks_${acks}`)
    const idempotence = acks === 'all' ? 'true' : 'false'
    const writerConnection = await connect(tc!.cluster, {
      'client.writer.acks': acks,
      'client.writer.enable-idempotence': idempotence,
    })
    try {
      const table = await writerConnection.getTable(path)
      const writer = table.newAppend().createWriter()
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => writer.appendWithResult(allTypesRow(i))),
      )
      await writer.close()
      if (acks !== '0') {
        const offsets = new Set(results.map(r => `${r.bucket}:${r.offset}`))
        expect(offsets.size).toBe(1000)
        for (const r of results) expect(r.offset).toBeGreaterThanOrEqual(0)
      }
      const records = await scanAll(table, 1000, { timeoutMs: 20_000 })
      expect(readProblemsSmall(records, 1000)).toEqual([])
      if (acks !== '0') {
        for (const r of results) {
          const at = records.get(r.bucket)?.[r.offset]
          expect(at?.offset).toBe(r.offset)
        }
      }
    } finally {
      await writerConnection.close()
    }
  })

  it('a long-polling scanner receives rows appended after it started', async () => {
    const path = await createTable(connection, database, allTypesDescriptor(2), 'tail')
    const readerConnection = await connect(tc!.cluster, { 'client.scanner.log.fetch.wait-max-time': '20s' })
    try {
      const table = await readerConnection.getTable(path)
      const scanner = table.newScan().createLogScanner()
      scanner.subscribeFromBeginning(0)
      scanner.subscribeFromBeginning(1)
      expect((await scanner.poll(500)).count).toBe(0)
      const polled = scanner.poll(15_000)
      await sleep(300)
      await appendRange(await connection.getTable(path), 0, 10)
      const first = await polled
      expect(first.count).toBeGreaterThan(0)
      const ids = [...first].map(r => Number(r.row[0]))
      for (const id of ids) expect(id).toBeLessThan(10)
      scanner.close()
    } finally {
      await readerConnection.close()
    }
  })
})

function readProblemsSmall(records: BucketRecords, rows: number): string[] {
  const problems = offsetGaps(records)
  const ids = [...records.values()].flat().map(r => Number(r.row[0]))
  if (ids.length !== rows) problems.push(`read ${ids.length} rows, expected ${rows}`)
  if (new Set(ids).size !== ids.length) problems.push('some rows were read twice')
  for (const list of records.values()) {
    for (const r of list) {
      const diff = rowDifference(allTypesRow(Number(r.row[0])), r.row, ALL_TYPES_NAMES)
      if (diff !== undefined) problems.push(`offset ${r.offset}: ${diff}`)
    }
  }
  return problems.slice(0, 10)
}
