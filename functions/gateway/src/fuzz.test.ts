import { describe, expect, it } from 'vitest'
import { type TestGateway, testGateway, withDatabase } from './testing/test-app.js'

/** Deterministic PRNG (mulberry32), so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const COLUMNS = [
  { name: 'id', type: 'INT NOT NULL' },
  { name: 'big', type: 'BIGINT' },
  { name: 'amount', type: 'DECIMAL(10, 2)' },
  { name: 'd', type: 'DOUBLE' },
  { name: 's', type: 'CHAR(4)' },
  { name: 'b', type: 'BYTES' },
  { name: 'day', type: 'DATE' },
  { name: 't', type: 'TIMESTAMP(3)' },
  { name: 'ltz', type: 'TIMESTAMP_LTZ(3)' },
]

/** Raw JSON texts that are wrong for each column (some are numbers JSON.parse would round). */
const INVALID: Record<string, string[]> = {
  id: ['null', '"1"', '1.5', '2147483648', '1e400', '123456789012345678901', 'true', '[]', '{}'],
  big: ['"1.5"', '9007199254740992', '"99999999999999999999"', 'true', '[1]', '123456789012345678901', '1.5'],
  amount: [
    '"1.234"',
    '"abc"',
    '"1e5"',
    '1.005',
    '0.30000000000000004',
    '[]',
    'true',
    '"123456789.00"',
    '1e400',
  ],
  d: ['"nan"', '{}', '1e400', '-1e400', '"1.5"'],
  s: ['1', 'true', '[]', '{}', '"abcde"', '"\\ud800"'],
  b: ['"!!"', '"abc"', '12', '"YWJj"x'],
  day: ['"2024-13-01"', '"2024-02-30"', '20240101', '"2024-1-1"'],
  t: ['"2024-01-01T00:00:00Z"', '"2024-01-01T00:00:00.1234"', '1.5', '"x"', '"2024-01-01T25:00:00"'],
  ltz: ['"2024-01-01T00:00:00"', '"2024-01-01T00:00:00+25:00"', '{}', '1e400'],
}

const VALID_ROW =
  '{"id":1,"big":"5","amount":"1.25","d":0.5,"s":"ab","b":"AAE=","day":"2024-01-01","t":"2024-01-01T00:00:00.5","ltz":"2024-01-01T00:00:00Z"}'

async function setup(): Promise<TestGateway> {
  const gw = await withDatabase(testGateway({ 'gateway.rest.write.max-request-bytes': 4096 }))
  expect(
    (await gw.call('POST', '/v1/databases/db/tables', { name: 'log', schema: { columns: COLUMNS } })).status,
  ).toBe(201)
  const pk = { name: 'pk', schema: { columns: COLUMNS, primary_key: ['id'] } }
  expect((await gw.call('POST', '/v1/databases/db/tables', pk)).status).toBe(201)
  return gw
}

const WRITE_PATHS = ['/v1/databases/db/tables/log/append', '/v1/databases/db/tables/pk/upsert']
const ALL_PATHS = [
  ...WRITE_PATHS,
  '/v1/databases/db/tables/pk/delete',
  '/v1/databases/db/tables/pk/lookup',
  '/v1/databases/db/tables/pk/prefix-lookup',
  '/v1/databases/db/tables/log/scan',
  '/v1/databases/db/tables',
  '/v1/databases',
]

async function expectRejected(
  gw: TestGateway,
  path: string,
  body: string | Uint8Array,
  what: string,
): Promise<void> {
  const res = await gw.call('POST', path, body, { 'content-type': 'application/json' })
  expect(res.status, `${what} → ${path}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(400)
  expect(res.status, `${what} → ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(500)
  expect(typeof res.body.error.message).toBe('string')
}

async function expectNothingWritten(gw: TestGateway): Promise<void> {
  expect(gw.backend.writtenRows).toBe(0)
  expect(gw.backend.calls.get('append') ?? 0).toBe(0)
  expect(gw.backend.calls.get('upsert') ?? 0).toBe(0)
  expect([...gw.backend.catalog.databases.keys()]).toEqual(['db'])
  expect([...gw.backend.catalog.tables.keys()].sort()).toEqual(['db.log', 'db.pk'])
  expect((await gw.call('GET', '/health')).status).toBe(200)
}

describe('JSON body fuzzing', () => {
  it('refuses a wrong value in any column of any row, writing nothing', async () => {
    const gw = await setup()
    for (const [column, values] of Object.entries(INVALID)) {
      for (const raw of values) {
        const bad = VALID_ROW.replace(new RegExp(`"${column}":("[^"]*"|[^,}]+)`), `"${column}":${raw}`)
        expect(bad).toContain(`"${column}":${raw}`)
        for (const path of WRITE_PATHS)
          await expectRejected(gw, path, `{"rows":[${VALID_ROW},${VALID_ROW},${bad}]}`, `${column}=${raw}`)
      }
    }
    await expectNothingWritten(gw)
  })

  it('refuses empty, non-UTF-8, deeply nested, oversized, duplicate-key and non-object bodies', async () => {
    const gw = await setup()
    const deepArrays = `{"rows":[{"id":1,"s":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`
    const deepObjects = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`
    const cases: [string, string | Uint8Array][] = [
      ['empty', ''],
      ['whitespace', ' \r\n\t '],
      [
        'invalid UTF-8',
        new Uint8Array([0x7b, 0x22, 0x72, 0x6f, 0x77, 0x73, 0x22, 0x3a, 0x5b, 0xc3, 0x28, 0x5d, 0x7d]),
      ],
      ['overlong UTF-8', new Uint8Array([0x22, 0xc0, 0xaf, 0x22])],
      ['lone surrogate bytes', new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22])],
      ['deep arrays', deepArrays],
      ['deep objects', deepObjects],
      ['oversized', `{"rows":[${Array.from({ length: 40 }, () => VALID_ROW).join(',')}]}`],
      ['duplicate keys', `{"rows":[{"id":1,"id":2}]}`],
      ['duplicate top-level keys', `{"rows":[${VALID_ROW}],"rows":[]}`],
      ['array body', `[${VALID_ROW}]`],
      ['number body', '42'],
      ['string body', '"rows"'],
      ['null body', 'null'],
      ['huge number body', '1e999999'],
      ['trailing garbage', `{"rows":[${VALID_ROW}]} x`],
      ['NUL byte', `{"rows":[${VALID_ROW}]}\u0000`],
    ]
    for (const path of ALL_PATHS) for (const [what, body] of cases) await expectRejected(gw, path, body, what)
    await expectNothingWritten(gw)
  })

  it('refuses random corruptions and random documents', async () => {
    const gw = await setup()
    const random = prng(0x5eed)
    const valid = `{"rows":[${VALID_ROW},${VALID_ROW}]}`
    for (let i = 0; i < 120; i++) {
      const at = Math.floor(random() * valid.length)
      const truncated = valid.slice(0, at)
      const withByte = new Uint8Array([
        ...Buffer.from(valid.slice(0, at)),
        0x80 + Math.floor(random() * 0x40),
        ...Buffer.from(valid.slice(at)),
      ])
      const path = WRITE_PATHS[i % WRITE_PATHS.length]
      await expectRejected(gw, path, truncated, `truncated at ${at}`)
      await expectRejected(gw, path, withByte, `stray byte at ${at}`)
    }
    const keys = ['rows', 'keys', 'columns', 'zz', '', 'prefixes', 'limit']
    const value = (depth: number): unknown => {
      const r = random()
      if (depth > 3 || r < 0.3)
        return [null, true, -1, 1e308, 'id', '', 0.1, 'x'.repeat(50)][Math.floor(random() * 8)]
      if (r < 0.65) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1))
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 3) }, () => [
          keys[Math.floor(random() * keys.length)],
          value(depth + 1),
        ]),
      )
    }
    for (let i = 0; i < 150; i++) {
      const body = JSON.stringify(value(0))
      await expectRejected(gw, ALL_PATHS[i % 5], body, `random ${body.slice(0, 80)}`)
    }
    await expectNothingWritten(gw)
  })
})
