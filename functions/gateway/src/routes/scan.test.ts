import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

async function setup() {
  const gw = await withDatabase(testGateway({ 'gateway.rest.scan.max-records': 4 }))
  await gw.call('POST', '/v1/databases/db/tables', {
    name: 'logs',
    schema: {
      columns: [
        { name: 'id', type: 'INT' },
        { name: 'msg', type: 'STRING' },
        { name: 'at', type: 'TIMESTAMP_LTZ(3)' },
      ],
    },
    bucket_count: 2,
  })
  const rows = Array.from({ length: 6 }, (_, id) => ({ id, msg: `m${id}`, at: '2024-01-01T00:00:00.5Z' }))
  expect((await gw.call('POST', '/v1/databases/db/tables/logs/append', { rows })).status).toBe(200)
  return gw
}

describe('scan route', () => {
  it('reads every bucket from the start, bounded, and continues from the cursor', async () => {
    const gw = await setup()
    const first = await gw.call('POST', '/v1/databases/db/tables/logs/scan', {})
    expect(first.body.records).toHaveLength(4)
    expect(first.body.records[0]).toMatchObject({
      partition: null,
      change_type: 'append_only',
      row: { at: '2024-01-01T00:00:00.5Z' },
    })
    const second = await gw.call('POST', '/v1/databases/db/tables/logs/scan', { cursor: first.body.cursor })
    expect(second.body.records).toHaveLength(2)
    const ids = [...first.body.records, ...second.body.records]
      .map((r: { row: { id: number } }) => r.row.id)
      .sort()
    expect(ids).toEqual([0, 1, 2, 3, 4, 5])
    const third = await gw.call('POST', '/v1/databases/db/tables/logs/scan', { cursor: second.body.cursor })
    expect(third.body.records).toEqual([])
    expect(third.body.cursor).toBe(second.body.cursor)
  })

  it('projects columns in the requested order and starts at explicit offsets', async () => {
    const gw = await setup()
    const res = await gw.call('POST', '/v1/databases/db/tables/logs/scan', {
      offsets: [{ bucket: 0, offset: 2 }],
      columns: ['msg', 'id'],
    })
    expect(
      res.body.records.every((r: { bucket: number; offset: number }) => r.bucket === 0 && r.offset >= 2),
    ).toBe(true)
    expect(Object.keys(res.body.records[0].row)).toEqual(['msg', 'id'])
    const latest = await gw.call('POST', '/v1/databases/db/tables/logs/scan', {
      offsets: [{ bucket: 0, offset: 'latest' }],
    })
    expect(latest.body.records).toEqual([])
  })

  it('refuses bad cursors, unknown columns, bad buckets and out-of-range offsets', async () => {
    const gw = await setup()
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/scan', { cursor: 'not-a-cursor' })).body.error
        .message,
    ).toMatch(/^cursor: /)
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/logs/scan', {
          cursor: Buffer.from('{"v":1,"t":999,"p":[]}').toString('base64url'),
        })
      ).body.error.message,
    ).toMatch(/another table/)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/scan', { columns: ['nope'] })).body.error.message,
    ).toMatch(/no such column 'nope'/)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/scan', { offsets: [{ bucket: 5, offset: 0 }] }))
        .status,
    ).toBe(400)
    expect(
      (await gw.call('POST', '/v1/databases/db/tables/logs/scan', { offsets: [{ bucket: 0, offset: -1 }] }))
        .status,
    ).toBe(400)
    const beyond = await gw.call('POST', '/v1/databases/db/tables/logs/scan', {
      offsets: [{ bucket: 0, offset: 100 }],
    })
    expect([beyond.status, beyond.body.error.code]).toEqual([416, 'out_of_range'])
  })

  it('names partitions in offsets and records of partitioned tables', async () => {
    const gw = await withDatabase(testGateway())
    await gw.call('POST', '/v1/databases/db/tables', {
      name: 'p',
      schema: {
        columns: [
          { name: 'day', type: 'STRING' },
          { name: 'v', type: 'INT' },
        ],
      },
      partition_keys: ['day'],
    })
    await gw.call('POST', '/v1/databases/db/tables/p/partitions', { spec: { day: 'd1' } })
    const write = await gw.call('POST', '/v1/databases/db/tables/p/append', {
      rows: [
        { day: 'd1', v: 1 },
        { day: 'd2', v: 2 },
      ],
    })
    expect(write.body.error.acknowledged_rows).toEqual([0])
    expect(write.body.error.failed_rows[0].code).toBe('partition_not_found')
    expect((await gw.call('POST', '/v1/databases/db/tables/p/scan', {})).status).toBe(400)
    const res = await gw.call('POST', '/v1/databases/db/tables/p/scan', {
      offsets: [{ partition: 'd1', bucket: 0, offset: 'earliest' }],
    })
    expect(res.body.records.map((r: { partition: string; row: unknown }) => [r.partition, r.row])).toEqual([
      ['d1', { day: 'd1', v: 1 }],
    ])
    expect(
      (
        await gw.call('POST', '/v1/databases/db/tables/p/scan', {
          offsets: [{ partition: 'zz', bucket: 0, offset: 0 }],
        })
      ).status,
    ).toBe(400)
  })
})
