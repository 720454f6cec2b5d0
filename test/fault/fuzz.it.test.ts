import type { Connection } from '@sluice/client'
import { Schema, TableDescriptor, type TableInfo, type TablePath } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { type ApiName, apiSpec, ClientConnection } from '@sluice/core/rpc'
import { DataTypes } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from '../it/support/cluster.js'
import { Prng } from '../it/support/prng.js'
import { exchange, rawFrame, requestFrame } from '../it/support/raw-wire.js'
import { countOf, scanAll } from '../it/support/scan.js'
import {
  errorCodes,
  garbageBodyFrame,
  produceFrame,
  produceNotRejected,
  randomFrame,
  validBatch,
  withWrongCrc,
  withWrongLength,
} from './fuzz-frames.js'

const SEED = 20_261_129
const LEGIT_ROWS = 300
const MAX_REQUEST_BYTES = 64 * 1024
const CORRUPT_CODES = [3, 14] // CORRUPT_MESSAGE, CORRUPT_RECORD_EXCEPTION

const descriptor = () =>
  TableDescriptor.builder()
    .schema(Schema.newBuilder().column('id', DataTypes.BIGINT()).column('name', DataTypes.STRING()).build())
    .distributedBy(2)
    .build()

const fuzzRows = (n: number, from = 1_000_000): Row[] =>
  Array.from({ length: n }, (_, i) => [BigInt(from + i), `fuzz-${i}-${'y'.repeat(i % 30)}`])

interface Endpoint {
  readonly host: string
  readonly port: number
}

describe(`malformed input against a running tablet server and coordinator (seed ${SEED})`, () => {
  const prng = new Prng(SEED)
  let tc: TestCluster | undefined
  let connection: Connection
  let fuzzPath: TablePath
  let fuzzInfo: TableInfo
  let controlInfo: TableInfo
  let latestBefore: Map<number, number>
  let tablet: Endpoint
  let coordinator: Endpoint
  let nextRequestId = 100

  const batch = (rows = fuzzRows(5)) => validBatch(fuzzInfo.rowType, fuzzInfo.schemaId, rows)

  /** ApiVersions on a new connection. */
  async function answersApiVersions(at: Endpoint, role: 'tablet' | 'coordinator'): Promise<boolean> {
    const c = await ClientConnection.connect({ ...at, expectedRole: role, connectTimeoutMs: 5000 })
    try {
      return c.serverApiVersions !== undefined
    } finally {
      c.close()
    }
  }

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 1,
      prefix: 'sluice-fuzz',
      serverConfig: { 'netty.server.max-request-size': `${MAX_REQUEST_BYTES}b` },
    })
    connection = await connect(tc.cluster)
    const database = await createDatabase(connection, 'fuzz_db')
    fuzzPath = await createTable(connection, database, descriptor(), 'fuzz')
    const controlPath = await createTable(connection, database, descriptor(), 'control')
    const table = await connection.getTable(fuzzPath)
    fuzzInfo = table.getTableInfo()
    controlInfo = (await connection.getTable(controlPath)).getTableInfo()
    const writer = table.newAppend().createWriter()
    for (let i = 0; i < LEGIT_ROWS; i++) writer.append([BigInt(i), `legit-${i}`])
    await writer.close()
    latestBefore = await connection.getAdmin().listOffsets(fuzzPath, [0, 1], 'latest')
    const t = tc.cluster.tablet(1)
    tablet = { host: t.host, port: t.port }
    const c = tc.cluster.coordinators[0]
    coordinator = { host: c.host, port: c.port }
  })

  afterAll(async () => {
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  it('control: a well-formed raw PRODUCE_LOG is appended (the raw encoding is right)', async () => {
    const records = validBatch(controlInfo.rowType, controlInfo.schemaId, fuzzRows(5))
    const result = await exchange(
      tablet.host,
      tablet.port,
      produceFrame(controlInfo.tableId, 0, records, 1),
      {
        expectResponses: 1,
      },
    )
    expect(result.responses.map(r => r.kind)).toEqual(['success'])
    expect(errorCodes(result)).toEqual([0])
  })

  it('random bytes and random frames are rejected and the connection closed', async () => {
    const problems: string[] = []
    for (const [name, at] of [
      ['tablet', tablet],
      ['coordinator', coordinator],
    ] as const) {
      for (let i = 0; i < 60; i++) {
        const result = await exchange(at.host, at.port, randomFrame(prng), { endAfterWrite: true })
        if (!result.closed) problems.push(`${name} #${i}: not closed`)
        for (const r of result.responses)
          if (r.kind === 'unparseable') problems.push(`${name} #${i}: ${r.detail}`)
      }
    }
    expect(problems).toEqual([])
    expect(await answersApiVersions(tablet, 'tablet')).toBe(true)
    expect(await answersApiVersions(coordinator, 'coordinator')).toBe(true)
  })

  it('truncated PRODUCE_LOG frames are not applied, cut anywhere', async () => {
    const problems: string[] = []
    for (let i = 0; i < 40; i++) {
      const frame = produceFrame(fuzzInfo.tableId, i % 2, batch(), nextRequestId++)
      const cut = frame.subarray(0, prng.int(1, frame.length - 1))
      const result = await exchange(tablet.host, tablet.port, cut, { endAfterWrite: true })
      problems.push(...produceNotRejected(result, `cut at ${cut.length}/${frame.length}`))
      if (!result.closed) problems.push(`cut at ${cut.length}: connection not closed after EOF`)
    }
    for (let i = 0; i < 40; i++) {
      const records = batch()
      const cut = records.subarray(0, prng.int(1, records.length - 1))
      const result = await exchange(
        tablet.host,
        tablet.port,
        produceFrame(fuzzInfo.tableId, i % 2, cut, nextRequestId++),
        {
          expectResponses: 1,
        },
      )
      problems.push(...produceNotRejected(result, `records cut at ${cut.length}/${records.length}`))
    }
    expect(problems).toEqual([])
  })

  it('valid headers with garbage bodies get an error answer or a close', async () => {
    const problems: string[] = []
    const keys = (...names: ApiName[]) => names.map(n => apiSpec(n).key)
    const tabletKeys = keys('PRODUCE_LOG', 'LIST_OFFSETS', 'GET_METADATA', 'INIT_WRITER')
    const coordinatorKeys = keys('GET_METADATA', 'LIST_DATABASES', 'TABLE_EXISTS', 'GET_TABLE_INFO')
    for (const [name, at, keys] of [
      ['tablet', tablet, tabletKeys],
      ['coordinator', coordinator, coordinatorKeys],
    ] as const) {
      for (let i = 0; i < 40; i++) {
        const key = prng.pick(keys)
        const result = await exchange(at.host, at.port, garbageBodyFrame(key, prng, nextRequestId++), {
          expectResponses: 1,
        })
        if (key === apiSpec('PRODUCE_LOG').key)
          problems.push(...produceNotRejected(result, `${name} garbage PRODUCE_LOG #${i}`))
        else if (result.timedOut) problems.push(`${name} key ${key} #${i}: neither an answer nor a close`)
      }
    }
    expect(problems).toEqual([])
  })

  it('PRODUCE_LOG batches with wrong CRCs are rejected as corrupt, also behind a valid batch', async () => {
    const problems: string[] = []
    const codes = new Set<number>()
    for (let i = 0; i < 30; i++) {
      const good = batch()
      const records =
        i % 3 === 0 ? Buffer.concat([good, withWrongCrc(batch(), prng)]) : withWrongCrc(good, prng)
      const result = await exchange(
        tablet.host,
        tablet.port,
        produceFrame(fuzzInfo.tableId, i % 2, records, nextRequestId++),
        {
          expectResponses: 1,
        },
      )
      problems.push(...produceNotRejected(result, `wrong CRC #${i}`))
      for (const code of errorCodes(result)) codes.add(code)
    }
    expect(problems).toEqual([])
    expect([...codes].filter(c => !CORRUPT_CODES.includes(c))).toEqual([])
  })

  it('batches with wrong Length fields and frames with wrong length prefixes are not applied', async () => {
    const problems: string[] = []
    for (let i = 0; i < 30; i++) {
      const records = withWrongLength(batch(), prng)
      const result = await exchange(
        tablet.host,
        tablet.port,
        produceFrame(fuzzInfo.tableId, i % 2, records, nextRequestId++),
        {
          expectResponses: 1,
        },
      )
      problems.push(
        ...produceNotRejected(
          result,
          `batch length off by ${records.readInt32LE(8) - batch().readInt32LE(8)}`,
        ),
      )
    }
    for (let i = 0; i < 20; i++) {
      const frame = Buffer.from(produceFrame(fuzzInfo.tableId, i % 2, batch(), nextRequestId++))
      const delta = prng.int(1, 40) * (i % 2 === 0 ? 1 : -1)
      frame.writeInt32BE(frame.readInt32BE(0) + delta, 0)
      const result = await exchange(tablet.host, tablet.port, frame, { endAfterWrite: true })
      problems.push(...produceNotRejected(result, `frame length off by ${delta}`))
    }
    expect(problems).toEqual([])
  })

  it('semantically invalid PRODUCE_LOG requests (acks, table, bucket, empty records) append nothing', async () => {
    const cases: [string, Buffer][] = [
      ['acks=5', produceFrame(fuzzInfo.tableId, 0, batch(), nextRequestId++, 5)],
      ['unknown table', produceFrame(987_654, 0, batch(), nextRequestId++)],
      ['unknown bucket', produceFrame(fuzzInfo.tableId, 7, batch(), nextRequestId++)],
      ['magic 9', produceFrame(fuzzInfo.tableId, 0, Buffer.from(batch()).fill(9, 12, 13), nextRequestId++)],
      [
        'trailing garbage',
        produceFrame(fuzzInfo.tableId, 0, Buffer.concat([batch(), prng.bytes(30)]), nextRequestId++),
      ],
    ]
    const problems: string[] = []
    for (const [what, frame] of cases) {
      const result = await exchange(tablet.host, tablet.port, frame, { expectResponses: 1 })
      problems.push(...produceNotRejected(result, what))
      if (result.responses.length === 0 && !result.closed) problems.push(`${what}: no answer`)
    }
    expect(problems).toEqual([])
  })

  it(`requests beyond netty.server.max-request-size (${MAX_REQUEST_BYTES} bytes) close the connection`, async () => {
    const big = produceFrame(fuzzInfo.tableId, 0, batch(fuzzRows(3000)), nextRequestId++)
    expect(big.length).toBeGreaterThan(MAX_REQUEST_BYTES)
    const headerOnly = rawFrame(1014, 0, nextRequestId++, Buffer.alloc(0))
    headerOnly.writeInt32BE(10 * MAX_REQUEST_BYTES, 0)
    for (const [name, at] of [
      ['tablet', tablet],
      ['coordinator', coordinator],
    ] as const) {
      for (const bytes of [big, headerOnly]) {
        const result = await exchange(at.host, at.port, bytes)
        expect(result.closed, `${name}: connection to be closed by the server`).toBe(true)
        expect(produceNotRejected(result, `${name} oversized`)).toEqual([])
      }
    }
  })

  it('unknown api keys and unsupported versions get UNSUPPORTED_VERSION or a close (ApiVersions itself answers at any version)', async () => {
    const problems: string[] = []
    const frames: [string, Buffer][] = [0, 1, 999, 1065, 1100, 2000, 32767, -1].map(key => [
      `api key ${key}`,
      rawFrame(key, 0, nextRequestId++, prng.bytes(16)),
    ])
    frames.push(['PRODUCE_LOG v7', rawFrame(1014, 7, nextRequestId++, Buffer.alloc(0))])
    for (const [name, at] of [
      ['tablet', tablet],
      ['coordinator', coordinator],
    ] as const) {
      for (const [what, frame] of frames) {
        const result = await exchange(at.host, at.port, frame, { expectResponses: 1 })
        const kinds = result.responses.map(r => r.kind)
        if (result.timedOut) problems.push(`${name} ${what}: neither an answer nor a close`)
        if (kinds.includes('success') || kinds.includes('unparseable'))
          problems.push(`${name} ${what}: answered ${kinds}`)
        const codes = errorCodes(result).filter(c => c !== 2)
        if (codes.length > 0)
          problems.push(`${name} ${what}: error codes ${codes} instead of UNSUPPORTED_VERSION (2)`)
      }
    }
    expect(problems).toEqual([])
    const hello = { clientSoftwareName: 'fuzz', clientSoftwareVersion: '0' }
    const versions = await exchange(
      tablet.host,
      tablet.port,
      requestFrame('API_VERSIONS', hello, nextRequestId++, 99),
      {
        expectResponses: 1,
      },
    )
    expect(versions.responses.map(r => r.kind)).toEqual(['success'])
  })

  it('afterwards: both servers still answer ApiVersions and no bytes were appended', async () => {
    expect(tc?.cluster.tablet(1).running).toBe(true)
    expect(tc?.cluster.coordinators[0].running).toBe(true)
    expect(await answersApiVersions(tablet, 'tablet')).toBe(true)
    expect(await answersApiVersions(coordinator, 'coordinator')).toBe(true)
    expect(await connection.getAdmin().listOffsets(fuzzPath, [0, 1], 'latest')).toEqual(latestBefore)
    const records = await scanAll(await connection.getTable(fuzzPath), LEGIT_ROWS, { timeoutMs: 20_000 })
    expect(countOf(records)).toBe(LEGIT_ROWS)
    const ids = [...records.values()]
      .flat()
      .map(r => Number(r.row[0]))
      .sort((a, b) => a - b)
    expect(ids).toEqual(Array.from({ length: LEGIT_ROWS }, (_, i) => i))
  })
})
