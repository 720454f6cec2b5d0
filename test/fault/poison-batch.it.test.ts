import type { Connection } from '@sluice/client'
import { ArrowBatchWriter } from '@sluice/core/arrow'
import { Schema, TableDescriptor, type TableInfo, type TablePath } from '@sluice/core/metadata'
import { buildLogBatch } from '@sluice/core/record'
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
import { exchange } from '../it/support/raw-wire.js'
import { countOf, scanAll } from '../it/support/scan.js'
import { errorCodes, produceFrame } from './fuzz-frames.js'

const SEED = 7
const BUCKETS = 4

/**
 * Batches whose header and CRC are valid but whose records are not an Arrow record batch of the
 * table: the leader has to refuse them, because once stored they can never be read past (every
 * scanner of the bucket fails at that offset, and the rows appended after it become unreachable).
 */
describe('CRC-valid batches with a body that does not fit the table are refused', () => {
  let tc: TestCluster | undefined
  let connection: Connection
  let path: TablePath
  let info: TableInfo

  const arrowOf = (rowType: TableInfo['rowType'], rows: unknown[][]) => {
    const w = new ArrowBatchWriter(rowType)
    for (const row of rows) w.addRow(row as never)
    return w.finish()
  }

  beforeAll(async () => {
    tc = await startReadyCluster({ tabletServers: 1, prefix: 'sluice-poison' })
    connection = await connect(tc.cluster)
    const database = await createDatabase(connection, 'poison_db')
    const schema = Schema.newBuilder()
      .column('id', DataTypes.BIGINT())
      .column('name', DataTypes.STRING())
      .column('n', DataTypes.INT())
      .build()
    path = await createTable(
      connection,
      database,
      TableDescriptor.builder().schema(schema).distributedBy(BUCKETS).build(),
    )
    info = (await connection.getTable(path)).getTableInfo()
  })

  afterAll(async () => {
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  it('refuses each malformed batch and every bucket stays readable, full and projected', async () => {
    const prng = new Prng(SEED)
    const rows = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => [BigInt(from + i), `r${i}`, i])
    const otherType = DataTypes.ROW([{ name: 'a', type: DataTypes.INT(), fieldId: 0 }])
    const batch = (recordCount: number, records: Uint8Array, schemaId = info.schemaId) =>
      buildLogBatch({ schemaId, appendOnly: true, recordCount, records })
    const cases: [string, Buffer][] = [
      ['random bytes as the Arrow body', batch(5, prng.bytes(200))],
      [
        'an Arrow batch of another schema',
        batch(
          5,
          arrowOf(
            otherType,
            rows(5, 0).map(r => [r[2]]),
          ),
        ),
      ],
      ['a record count the Arrow body does not have', batch(5, arrowOf(info.rowType, rows(3, 100)))],
      ['an unknown schema id', batch(5, arrowOf(info.rowType, rows(5, 200)), 77)],
    ]
    const accepted: string[] = []
    for (const [bucket, [what, records]] of cases.entries()) {
      const result = await exchange(
        tc!.cluster.tablet(1).host,
        tc!.cluster.tablet(1).port,
        produceFrame(info.tableId, bucket, records, bucket + 1),
        {
          expectResponses: 1,
        },
      )
      const codes = errorCodes(result)
      if (codes.length === 0 || codes.includes(0))
        accepted.push(`bucket ${bucket}: ${what} was accepted (codes ${codes})`)
    }
    const writer = (await connection.getTable(path)).newAppend().createWriter()
    for (const row of rows(40, 1000)) writer.append(row)
    await writer.close()

    const failures: string[] = []
    for (const columns of [undefined, ['id', 'n']]) {
      try {
        const records = await scanAll(await connection.getTable(path), 40, { columns, timeoutMs: 10_000 })
        if (countOf(records) !== 40)
          failures.push(`scan ${columns ?? 'all'}: ${countOf(records)} rows, expected 40`)
      } catch (e) {
        failures.push(`scan ${columns ?? 'all columns'}: ${String(e)}`)
      }
    }
    expect({ accepted, failures }).toEqual({ accepted: [], failures: [] })
  })
})
