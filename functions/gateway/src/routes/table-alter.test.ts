import { describe, expect, it } from 'vitest'
import { testGateway, withDatabase } from '../testing/test-app.js'

const T = '/v1/databases/db/tables/logs'

async function setup() {
  const gw = await withDatabase(testGateway())
  const created = await gw.call('POST', '/v1/databases/db/tables', {
    name: 'logs',
    schema: {
      columns: [
        { name: 'id', type: 'INT NOT NULL' },
        { name: 'qty', type: 'INT' },
        { name: 'label', type: 'STRING' },
      ],
    },
    bucket_count: 1,
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  expect((await gw.call('POST', `${T}/append`, { rows: [{ id: 1, qty: 5, label: 'a' }] })).status).toBe(200)
  return gw
}

type Column = {
  name: string
  column_id: number
  type_string: string
  comment: string | null
  default_value: string | null
}

describe('alter table route', () => {
  it('adds a column with a default, renames and widens; rows are read by column id', async () => {
    const gw = await setup()
    const added = await gw.call('POST', `${T}/alter`, {
      add_columns: [{ name: 'region', type: 'STRING', comment: 'where', default_value: 'eu' }],
    })
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    expect(added.body.schema_id).toBe(2)
    const region = (added.body.schema.columns as Column[]).find(c => c.name === 'region')
    expect(region).toEqual({
      name: 'region',
      column_id: 3,
      type: { type: 'STRING' },
      type_string: 'STRING',
      comment: 'where',
      default_value: 'eu',
    })
    // A row that leaves the column out takes its default; an explicit null stays null.
    const rows = [
      { id: 2, qty: 6, label: 'b' },
      { id: 3, qty: 7, label: 'c', region: null },
    ]
    expect((await gw.call('POST', `${T}/append`, { rows })).status).toBe(200)

    const changed = await gw.call('POST', `${T}/alter`, {
      rename_columns: [{ name: 'label', new_name: 'title' }],
      modify_columns: [{ name: 'qty', type: 'BIGINT', comment: 'widened' }],
    })
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)
    expect(changed.body.schema_id).toBe(3)
    const columns = changed.body.schema.columns as Column[]
    expect(columns.map(c => [c.name, c.column_id, c.type_string])).toEqual([
      ['id', 0, 'INT NOT NULL'],
      ['qty', 1, 'BIGINT'],
      ['title', 2, 'STRING'],
      ['region', 3, 'STRING'],
    ])
    const scan = await gw.call('POST', `${T}/scan`, {})
    expect(scan.body.records.map((r: { row: unknown }) => r.row)).toEqual([
      // BIGINT values are JSON strings (the gateway's mapping): qty's rows of INT times are widened.
      { id: 1, qty: '5', title: 'a', region: null },
      { id: 2, qty: '6', title: 'b', region: 'eu' },
      { id: 3, qty: '7', title: 'c', region: null },
    ])

    const dropped = await gw.call('POST', `${T}/alter`, { drop_columns: ['title'] })
    expect(dropped.body.schema.columns.map((c: Column) => c.name)).toEqual(['id', 'qty', 'region'])
    const versions = await gw.call('GET', `${T}/schemas`)
    expect(versions.status).toBe(200)
    expect(versions.body.schemas.map((v: { schema_id: number }) => v.schema_id)).toEqual([1, 2, 3, 4])
    expect(versions.body.schemas[0].schema.columns.map((c: Column) => c.name)).toEqual(['id', 'qty', 'label'])
    expect(versions.body.schemas[3].schema.columns.map((c: Column) => c.column_id)).toEqual([0, 1, 3])
  })

  it('sets and resets properties', async () => {
    const gw = await setup()
    const set = await gw.call('POST', `${T}/alter`, { set: { 'table.log.ttl': '2d' } })
    expect([set.status, set.body.schema_id, set.body.properties['table.log.ttl']]).toEqual([200, 1, '2d'])
    const reset = await gw.call('POST', `${T}/alter`, { reset: ['table.log.ttl'] })
    expect(reset.body.properties['table.log.ttl']).toBeUndefined()
  })

  it('refuses unsafe or malformed changes with 400 and changes nothing', async () => {
    const gw = await setup()
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ drop_columns: ['nope'] }, /Column nope does not exist/],
      [{ modify_columns: [{ name: 'qty', type: 'SMALLINT' }] }, /Cannot modify column 'qty'/],
      [{ add_columns: [{ name: 'x', type: 'INT NOT NULL' }] }, /must be nullable/],
      [{ add_columns: [{ name: 'x', type: 'INT', default_value: 'abc' }] }, /Invalid default "abc"/],
      [{ set: { 'table.log.ttl': '1d' }, drop_columns: ['label'] }, /table properties or table schema/],
      [{ add_columns: [{ name: 'x', type: 'DECIMAL(99, 0)' }] }, /add_columns\[0\]\.type/],
      [{ drop_columns: 'qty' }, /drop_columns/],
      [{ rename_columns: [{ name: 'qty' }] }, /new_name/],
      [{ unknown: true }, /unknown/],
    ]
    for (const [body, message] of refused) {
      const res = await gw.call('POST', `${T}/alter`, body)
      expect([res.status, res.body.error.code], JSON.stringify(body)).toEqual([400, 'invalid_argument'])
      expect(res.body.error.message).toMatch(message)
    }
    expect((await gw.call('GET', `${T}/schemas`)).body.schemas).toHaveLength(1)
    expect((await gw.call('GET', T)).body.schema_id).toBe(1)
    const missing = await gw.call('POST', '/v1/databases/db/tables/none/alter', { drop_columns: ['x'] })
    expect(missing.status).toBe(404)
    const ignored = await gw.call('POST', '/v1/databases/db/tables/none/alter', {
      drop_columns: ['x'],
      if_exists: true,
    })
    expect(ignored.status).toBe(204)
    expect((await gw.call('GET', '/v1/databases/db/tables/none/schemas')).status).toBe(404)
  })
})
