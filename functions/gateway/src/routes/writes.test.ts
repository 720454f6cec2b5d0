import { DataTypes, notNull, type RowType, Timestamp } from '@sluice/core'
import { ArrowBatchWriter, writeArrowStream } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

const LOG = {
  name: 'logs',
  schema: {
    columns: [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'msg', type: 'STRING' },
      { name: 'amount', type: 'DECIMAL(10, 2)' },
    ],
  },
  bucket_count: 2,
}
const PK = {
  name: 'users',
  schema: {
    columns: [
      { name: 'id', type: 'BIGINT NOT NULL' },
      { name: 'name', type: 'STRING' },
      { name: 'age', type: 'INT' },
    ],
    primary_key: ['id'],
  },
}

async function setup() {
  const gw = await withDatabase(testGateway({}, { maxRows: 5 }))
  for (const t of [LOG, PK]) expect((await gw.call('POST', '/v1/databases/db/tables', t)).status).toBe(201)
  return gw
}

const arrowBody = (rowType: RowType, rows: unknown[][]) => {
  const w = new ArrowBatchWriter(rowType)
  for (const r of rows) w.addRow(r as never)
  return writeArrowStream(rowType, [w.finish()])
}

const ARROW = { 'content-type': 'application/vnd.apache.arrow.stream' }

describe('write routes', () => {
  it('appends JSON rows to a log table', async () => {
    const gw = await setup()
    const res = await gw.call('POST', '/v1/databases/db/tables/logs/append', {
      rows: [{ id: 1, msg: 'a', amount: '1.5' }, { id: 2 }],
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ row_count: 2 })
    expect(gw.backend.writtenRows).toBe(2)
  })

  it('validates the whole request first: one bad row writes nothing and names row and column', async () => {
    const gw = await setup()
    const res = await gw.call('POST', '/v1/databases/db/tables/logs/append', {
      rows: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4, amount: '1.234' }],
    })
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_argument'])
    expect(res.body.error.message).toMatch(/^rows\[3\]\.amount: /)
    expect(gw.backend.writtenRows).toBe(0)
    expect(gw.backend.calls.get('append')).toBeUndefined()
  })

  it('refuses too many rows with 413 and empty row lists with 400', async () => {
    const gw = await setup()
    const rows = Array.from({ length: 6 }, (_, id) => ({ id }))
    const res = await gw.call('POST', '/v1/databases/db/tables/logs/append', { rows })
    expect([res.status, res.body.error.code]).toEqual([413, 'limit_exceeded'])
    expect((await gw.call('POST', '/v1/databases/db/tables/logs/append', { rows: [] })).status).toBe(400)
    expect(gw.backend.writtenRows).toBe(0)
  })

  it('refuses the wrong kind of write for the table', async () => {
    const gw = await setup()
    const append = await gw.call('POST', '/v1/databases/db/tables/users/append', { rows: [{ id: 1 }] })
    expect([append.status, append.body.error.code]).toEqual([409, 'failed_precondition'])
    expect((await gw.call('POST', '/v1/databases/db/tables/logs/upsert', { rows: [{ id: 1 }] })).status).toBe(
      409,
    )
    expect((await gw.call('POST', '/v1/databases/db/tables/logs/delete', { keys: [{ id: 1 }] })).status).toBe(
      409,
    )
  })

  it('upserts, partially updates and deletes by key', async () => {
    const gw = await setup()
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/users/upsert', {
          rows: [
            { id: '1', name: 'ann', age: 30 },
            { id: 2, name: 'bob' },
          ],
        })
      ).status,
    ).toBe(200)
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/users/upsert', {
          rows: [{ id: 1, age: 31 }],
          columns: ['age'],
        })
      ).status,
    ).toBe(200)
    const partialBad = await gw.call('POST', '/v1/databases/db/tables/users/upsert', {
      rows: [{ id: 1, name: 'x' }],
      columns: ['age'],
    })
    expect(partialBad.body.error.message).toMatch(/rows\[0\]\.name: this column cannot be given here/)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/users/upsert', { rows: [{ name: 'x' }] })).body.error
        .message,
    ).toMatch(/rows\[0\]\.id: a value is required/)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/users/delete', { keys: [{ id: 2 }] })).status,
    ).toBe(200)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/users/delete', { keys: [{ id: 2, name: 'x' }] }))
        .status,
    ).toBe(400)
    const looked = await gw.call('POST', '/v1/databases/db/tables/users/lookup', {
      keys: [{ id: 1 }, { id: 2 }],
    })
    expect(looked.body.rows).toEqual([{ id: '1', name: 'ann', age: 31 }, null])
    const log = await gw.call('POST', '/v1/databases/db/tables/users/scan', {})
    expect(log.body.records.map((r: { change_type: string }) => r.change_type)).toEqual([
      'insert',
      'insert',
      'update_before',
      'update_after',
      'delete',
    ])
  })

  it('accepts Arrow IPC stream bodies matched to columns by name', async () => {
    const gw = await setup()
    const rowType: RowType = {
      type: 'ROW',
      nullable: false,
      fields: [
        { name: 'msg', type: DataTypes.STRING(), fieldId: 0 },
        { name: 'id', type: notNull(DataTypes.INT()), fieldId: 1 },
      ],
    }
    const res = await gw.call(
      'POST',
      '/v1/databases/db/tables/logs/append',
      arrowBody(rowType, [
        ['x', 7],
        [null, 8],
      ]),
      ARROW,
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.row_count).toBe(2)
    const scan = await gw.call('POST', '/v1/databases/db/tables/logs/scan', { columns: ['id', 'msg'] })
    expect(
      scan.body.records
        .map((r: { row: unknown }) => r.row)
        .sort((a: { id: number }, b: { id: number }) => a.id - b.id),
    ).toEqual([
      { id: 7, msg: 'x' },
      { id: 8, msg: null },
    ])
  })

  it('takes Arrow timestamps without a zone for TIMESTAMP_LTZ columns (as Fluss writes them), not the reverse', async () => {
    const gw = await withDatabase(testGateway())
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 'times',
      schema: {
        columns: [
          { name: 'at', type: 'TIMESTAMP_LTZ(3)' },
          { name: 'local', type: 'TIMESTAMP(3)' },
        ],
      },
    })
    const ltz: RowType = {
      type: 'ROW',
      nullable: false,
      fields: [{ name: 'at', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 0 }],
    }
    const plain = arrowBody(ltz, [[new Timestamp(1_700_000_000_123)]])
    const ok = await gw.call('POST', '/v1/databases/db/tables/times/append', plain, ARROW)
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    const scan = await gw.call('POST', '/v1/databases/db/tables/times/scan', { columns: ['at'] })
    expect(scan.body.records.map((r: { row: unknown }) => r.row)).toEqual([
      { at: '2023-11-14T22:13:20.123Z' },
    ])
    const zoned: RowType = {
      type: 'ROW',
      nullable: false,
      fields: [{ name: 'local', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 0 }],
    }
    const w = new ArrowBatchWriter(zoned)
    w.addRow([new Timestamp(0)])
    const body = writeArrowStream(zoned, [w.finish()], { timestampLtzTimezone: 'UTC' })
    const refused = await gw.call('POST', '/v1/databases/db/tables/times/append', body, ARROW)
    expect([refused.status, refused.body.error.message]).toEqual([
      400,
      expect.stringMatching(/'local' has type TIMESTAMP_LTZ\(3\), the column is TIMESTAMP\(3\)/),
    ])
  })

  it('refuses Arrow bodies with unknown fields, wrong types, corrupt bytes or too many rows', async () => {
    const gw = await setup()
    const wrong: RowType = {
      type: 'ROW',
      nullable: false,
      fields: [{ name: 'id', type: DataTypes.BIGINT(), fieldId: 0 }],
    }
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/append', arrowBody(wrong, [[1n]]), ARROW)).body
        .error.message,
    ).toMatch(/has type BIGINT, the column is INT NOT NULL/)
    const unknown: RowType = {
      type: 'ROW',
      nullable: false,
      fields: [{ name: 'zzz', type: DataTypes.INT(), fieldId: 0 }],
    }
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/append', arrowBody(unknown, [[1]]), ARROW)).body
        .error.message,
    ).toMatch(/zzz/)
    const nullId: RowType = {
      type: 'ROW',
      nullable: false,
      fields: [{ name: 'id', type: DataTypes.INT(), fieldId: 0 }],
    }
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/append', arrowBody(nullId, [[1], [null]]), ARROW))
        .body.error.message,
    ).toMatch(/^rows\[1\]\.id: .*NOT NULL/)
    expect(
      (
        await gw.call(
          'POST',
          '/v1/databases/db/tables/logs/append',
          new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]),
          ARROW,
        )
      ).status,
    ).toBe(400)
    const many = arrowBody(
      nullId,
      Array.from({ length: 6 }, (_, i) => [i]),
    )
    expect((await gw.call('POST', '/v1/databases/db/tables/logs/append', many, ARROW)).status).toBe(413)
    expect(gw.backend.writtenRows).toBe(0)
  })

  it('reports exactly which rows were acknowledged when the cluster fails part-way', async () => {
    const gw = await setup()
    gw.backend.rowFailure = row =>
      row[0] === 2 || row[0] === 4 ? new FlussError('NOT_LEADER_OR_FOLLOWER', 'leader moved') : undefined
    const res = await gw.call('POST', '/v1/databases/db/tables/logs/append', {
      rows: [0, 1, 2, 3, 4].map(id => ({ id })),
    })
    expect([res.status, res.body.error.code, res.headers.get('retry-after')]).toEqual([
      503,
      'unavailable',
      '1',
    ])
    expect(res.body.error.acknowledged_rows).toEqual([0, 1, 3])
    expect(res.body.error.failed_rows).toEqual([
      { index: 2, code: 'unavailable', message: 'leader moved' },
      { index: 4, code: 'unavailable', message: 'leader moved' },
    ])
    expect(gw.backend.writtenRows).toBe(3)
  })

  it('makes retries with an Idempotency-Key safe: replays success, writes only unacknowledged rows', async () => {
    const gw = await setup()
    const rows = { rows: [0, 1, 2].map(id => ({ id })) }
    const key = { 'idempotency-key': 'k-1' }
    gw.backend.rowFailure = row =>
      row[0] === 1 ? new FlussError('NOT_LEADER_OR_FOLLOWER', 'moved') : undefined
    const first = await gw.call('POST', '/v1/databases/db/tables/logs/append', rows, key)
    expect(first.body.error.acknowledged_rows).toEqual([0, 2])
    gw.backend.rowFailure = undefined
    const second = await gw.call('POST', '/v1/databases/db/tables/logs/append', rows, key)
    expect([second.status, second.body]).toEqual([200, { row_count: 3 }])
    expect(gw.backend.writtenRows).toBe(3)
    const third = await gw.call('POST', '/v1/databases/db/tables/logs/append', rows, key)
    expect([third.status, third.headers.get('idempotent-replayed')]).toEqual([200, 'true'])
    expect(gw.backend.writtenRows).toBe(3)
    const other = await gw.call('POST', '/v1/databases/db/tables/logs/append', { rows: [{ id: 9 }] }, key)
    expect([other.status, other.body.error.code]).toEqual([409, 'failed_precondition'])
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/append', rows, { 'idempotency-key': 'bad key' }))
        .status,
    ).toBe(400)
  })

  it('forgets a key whose write failed before anything was acknowledged', async () => {
    const gw = await setup()
    gw.backend.failNext('append', new FlussError('NETWORK_EXCEPTION', 'down'))
    const key = { 'idempotency-key': 'k-2' }
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/append', { rows: [{ id: 1 }] }, key)).status,
    ).toBe(503)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/append', { rows: [{ id: 1 }] }, key)).status,
    ).toBe(200)
    expect(gw.backend.writtenRows).toBe(1)
  })
})
