import type { Row } from '@sluice/core'
import { Configuration } from '@sluice/core/config'
import { describe, expect, it } from 'vitest'
import { gatewayLimits } from '../limits.js'
import { canonicalValue, generalBodyRows, type WriteKindSpec } from '../testing/json-body-oracle.js'
import { mutateBytes, Prng, RandomJsonBodies } from '../testing/random-json-bodies.js'
import { type TestGateway, testGateway, withDatabase } from '../testing/test-app.js'

const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'flag', type: 'BOOLEAN' },
  { name: 'n', type: 'INT' },
  { name: 'd', type: 'DOUBLE' },
  { name: 'price', type: 'DECIMAL(10, 2)' },
  { name: 'code', type: 'CHAR(3)' },
  { name: 's', type: 'STRING' },
  { name: 'bin', type: 'BINARY(4)' },
  { name: 'day', type: 'DATE' },
  { name: 'tod', type: 'TIME(3)' },
  { name: 'ts', type: 'TIMESTAMP(6)' },
  { name: 'ltz', type: 'TIMESTAMP_LTZ(3)' },
  { name: 'tags', type: 'ARRAY<STRING>' },
]
const MAX_ROWS = 3
const LIMITS = gatewayLimits(Configuration.load({}), { maxRows: MAX_ROWS })

const KINDS: Record<'append' | 'upsert' | 'delete', { table: string } & WriteKindSpec> = {
  append: { table: 'log', member: 'rows', options: {} },
  upsert: { table: 'pk', member: 'rows', options: { required: ['id'] } },
  delete: { table: 'pk', member: 'keys', options: { allowed: ['id'], required: ['id'] } },
}

async function setup(): Promise<TestGateway> {
  const gw = await withDatabase(testGateway({}, { maxRows: MAX_ROWS }))
  const log = { name: 'log', schema: { columns: COLUMNS } }
  const pk = { name: 'pk', schema: { columns: COLUMNS, primary_key: ['id'] } }
  for (const t of [log, pk]) expect((await gw.call('POST', '/v1/databases/db/tables', t)).status).toBe(201)
  return gw
}

/** Every row the memory backend's log of `table` holds, in order. */
function logRows(gw: TestGateway, table: string): Row[] {
  const t = gw.backend.catalog.table({ databaseName: 'db', tableName: table })
  return [...t.logs.values()].flat().map(r => r.row)
}

describe('JSON write routes answer as the general path does', () => {
  it('writes the same rows or sends the same error for random and mutated bodies', async () => {
    const gw = await setup()
    const info = gw.backend.catalog.table({ databaseName: 'db', tableName: 'log' }).info
    const rnd = new Prng(0xb0d1e5)
    const rows = new RandomJsonBodies(info.rowType, rnd)
    const keys = new RandomJsonBodies({ ...info.rowType, fields: [info.rowType.fields[0]] }, rnd)
    let written = 0
    for (let i = 0; i < 400; i++) {
      const kind = rnd.pick(['append', 'append', 'upsert', 'delete'] as const)
      const spec = KINDS[kind]
      const text = (kind === 'delete' ? keys : rows).body(spec.member, 1 + rnd.int(4), rnd.pick([0, 0.05]))
      const bytes = rnd.chance(0.3) ? mutateBytes(rnd, Buffer.from(text)) : Buffer.from(text)
      const expected = generalBodyRows(info.rowType, spec, bytes, MAX_ROWS, LIMITS.maxJsonDepth)
      const before = logRows(gw, spec.table).length
      const res = await gw.call('POST', `/v1/databases/db/tables/${spec.table}/${kind}`, bytes, {
        'content-type': 'application/json',
      })
      const what = `${kind} ${Buffer.from(bytes).toString('utf8').slice(0, 300)}`
      if ('error' in expected) {
        expect([res.status, res.body.error?.code, res.body.error?.message], what).toEqual([
          expected.error.status,
          expected.error.code,
          expected.error.message,
        ])
        expect(logRows(gw, spec.table).length, what).toBe(before)
        continue
      }
      expect([res.status, res.body], what).toEqual([200, { row_count: expected.rows.length }])
      written++
      if (kind === 'append') {
        const added = logRows(gw, 'log').slice(before)
        expect(
          added.map(r => r.map(canonicalValue)),
          what,
        ).toEqual(expected.rows.map(r => r.map(canonicalValue)))
      }
    }
    expect(written).toBeGreaterThan(50)
  })
})
