import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ArrowBatchWriter, writeArrowStream } from '@sluice/core/arrow'
import { Timestamp } from '@sluice/core/row'
import { REPO_ROOT } from '@sluice/core/testing'
import {
  Decimal as ArrowDecimal,
  Field as ArrowJsField,
  Table as ArrowTable,
  Float32,
  Int32,
  List,
  Map_,
  Struct,
  TimestampMillisecond,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow'
import { afterEach, describe, expect, it } from 'vitest'
import { type SdkGateway, startSdkGateway } from '../testing/sdk-gateway.js'

/** Tables with ARRAY, MAP and ROW columns through the gateway: DDL, typed JSON both ways, Arrow bodies. */

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const TABLES = '/v1/databases/db/tables'

async function gateway(): Promise<SdkGateway> {
  const gw = await startSdkGateway(cleanups)
  await gw.call('POST', '/v1/databases', { name: 'db' })
  return gw
}

async function create(gw: SdkGateway, body: unknown): Promise<void> {
  const res = await gw.call('POST', TABLES, body)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
}

async function ok(gw: SdkGateway, method: string, path: string, body?: unknown) {
  const res = await gw.call(method, path, body)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

async function postArrow(gw: SdkGateway, path: string, bytes: Uint8Array) {
  const res = await fetch(`${gw.server.url}${path}`, {
    method: 'POST',
    body: bytes,
    headers: { 'content-type': 'application/vnd.apache.arrow.stream' },
  })
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  return { status: res.status, body: (await res.json()) as any }
}

/** The log table of Fluss 0.9's nested example, and a MAP of arrays of rows. */
const EVENTS = {
  name: 'events',
  schema: {
    columns: [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'samples', type: 'ARRAY<MAP<STRING, ROW<`values` ARRAY<FLOAT>, ts TIMESTAMP_LTZ(3)>>>' },
      { name: 'by_user', type: 'MAP<STRING, ARRAY<ROW<score DECIMAL(5, 2), tags ARRAY<STRING>>>>' },
      { name: 'by_id', type: 'MAP<BIGINT, ROW<x INT NOT NULL, label STRING>>' },
    ],
  },
  bucket_count: 1,
}

/** Row `i` of `events` in typed JSON, as the gateway answers it (its canonical form). */
const event = (i: number) => ({
  id: i,
  samples: [{ m: { values: [i + 0.5, null], ts: '2024-01-01T00:00:00.25Z' }, none: null }, null, {}],
  by_user: { alice: [{ score: `${i}.50`, tags: ['a', null] }, null], bob: [] },
  by_id: [
    { key: '9007199254740993', value: { x: i, label: null } },
    { key: '-1', value: null },
  ],
})

describe('nested columns over the gateway', () => {
  it("creates docs/gateway.md's example table (ARRAY<STRING> column) and writes and reads it", async () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/gateway.md'), 'utf8')
    const example = /### Create table\n\n```json\n([\s\S]*?)```/.exec(doc)?.[1]
    expect(example).toContain('ARRAY<STRING>')
    const gw = await gateway()
    await create(gw, JSON.parse(example as string))
    const orders = `${TABLES}/orders`
    await ok(gw, 'POST', `${orders}/upsert`, {
      rows: [
        { id: 1, amount: '9.99', tags: ['new', 'gift'] },
        { id: 2, amount: '1.00', tags: [] },
      ],
    })
    const found = await ok(gw, 'POST', `${orders}/lookup`, { keys: [{ id: 1 }, { id: 2 }, { id: 3 }] })
    expect(found.rows).toEqual([
      { id: '1', amount: '9.99', tags: ['new', 'gift'] },
      { id: '2', amount: '1.00', tags: [] },
      null,
    ])
    const schema = await ok(gw, 'GET', `${orders}/schema`)
    expect(schema.columns[2]).toMatchObject({ name: 'tags', type_string: 'ARRAY<STRING>' })
  })

  it('appends typed JSON and Arrow bodies to a log table with deep nesting, and scans them back', async () => {
    const gw = await gateway()
    await create(gw, EVENTS)
    const events = `${TABLES}/events`
    expect((await ok(gw, 'POST', `${events}/append`, { rows: [event(1), event(2)] })).row_count).toBe(2)

    // An exact Arrow stream of the table's columns (our encoder's), and one written by apache-arrow
    // with other child names, fields of a ROW in another order, and a decimal at another scale.
    const info = await gw.backend.connection
      .getAdmin()
      .getTableInfo({ databaseName: 'db', tableName: 'events' })
    const writer = new ArrowBatchWriter(info.rowType)
    writer.addRow([3, null, new Map([['carol', [null]]]), new Map([[7n, [7, 'seven']]])])
    const exact = await postArrow(gw, `${events}/append`, writeArrowStream(info.rowType, [writer.finish()]))
    expect(exact.status, JSON.stringify(exact.body)).toBe(200)
    const sample = new Struct([
      new ArrowJsField('ts', new TimestampMillisecond(), true),
      new ArrowJsField('values', new List(new ArrowJsField('item', new Float32(), true)), true),
    ])
    const apache = new ArrowTable({
      id: vectorFromArray([4], new Int32()),
      samples: vectorFromArray(
        [[new Map([['m', { ts: 1_704_067_200_250, values: [4.5] }]])]],
        new List(new ArrowJsField('item', mapOf(new Utf8(), sample), true)),
      ),
      by_user: vectorFromArray(
        [new Map([['dave', [{ tags: ['x'], score: new Uint32Array([1050, 0, 0, 0]) }]]])],
        mapOf(
          new Utf8(),
          new List(
            new ArrowJsField(
              'item',
              new Struct([
                new ArrowJsField('tags', new List(new ArrowJsField('item', new Utf8(), true)), true),
                new ArrowJsField('score', new ArrowDecimal(3, 5, 128), true),
              ]),
              true,
            ),
          ),
        ),
      ),
    } as never)
    const other = await postArrow(gw, `${events}/append`, tableToIPC(apache, 'stream'))
    expect(other.status, JSON.stringify(other.body)).toBe(200)

    const scanned = await ok(gw, 'POST', `${events}/scan`, { limit: 100 })
    expect(scanned.records.map((r: { row: unknown }) => r.row)).toEqual([
      event(1),
      event(2),
      {
        id: 3,
        samples: null,
        by_user: { carol: [null] },
        by_id: [{ key: '7', value: { x: 7, label: 'seven' } }],
      },
      {
        id: 4,
        samples: [{ m: { values: [4.5], ts: '2024-01-01T00:00:00.25Z' } }],
        by_user: { dave: [{ score: '1.05', tags: ['x'] }] },
        by_id: null,
      },
    ])
    const projected = await ok(gw, 'POST', `${events}/scan`, { columns: ['by_id'], limit: 1 })
    expect(projected.records[0].row).toEqual({ by_id: event(1).by_id })
  })

  it('refuses nested values that do not fit, naming the path, and writes nothing', async () => {
    const gw = await gateway()
    await create(gw, EVENTS)
    const events = `${TABLES}/events`
    const bad: [unknown, RegExp][] = [
      [{ id: 1, samples: [{ m: { values: 'x' } }] }, /rows\[1\]\.samples\[0\]\.m\.values: expected an array/],
      [
        { id: 1, by_user: { a: [{ score: '1.234' }] } },
        /rows\[1\]\.by_user\.a\[0\]\.score: .*DECIMAL\(5, 2\)/,
      ],
      [
        { id: 1, by_id: { 1: { x: 1 } } },
        /rows\[1\]\.by_id: expected an array of \{"key", "value"\} entries/,
      ],
      [{ id: 1, by_id: [{ key: 1, value: { label: 'no x' } }] }, /NOT NULL/],
    ]
    for (const [row, message] of bad) {
      const res = await gw.call('POST', `${events}/append`, { rows: [event(9), row] })
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({
        code: 'invalid_argument',
        message: expect.stringMatching(message),
      })
    }
    const wrongChild = new ArrowTable({
      id: vectorFromArray([1], new Int32()),
      samples: vectorFromArray([[1]], new List(new ArrowJsField('item', new Int32(), true))),
    } as never)
    const refused = await postArrow(gw, `${events}/append`, tableToIPC(wrongChild, 'stream'))
    expect(refused.status).toBe(400)
    expect(refused.body.error.message).toMatch(/Arrow field 'samples\.element' has type INT/)
    expect((await ok(gw, 'POST', `${events}/scan`, {})).records).toEqual([])
  })

  it('primary-key tables: upserts, partial updates, lookups, prefix lookups and snapshots of nested values', async () => {
    const gw = await gateway()
    await create(gw, {
      name: 'profiles',
      schema: {
        columns: [
          { name: 'user', type: 'STRING NOT NULL' },
          { name: 'day', type: 'DATE NOT NULL' },
          { name: 'visits', type: 'ARRAY<ROW<at TIMESTAMP_LTZ(3), pages ARRAY<STRING>>>' },
          { name: 'counts', type: 'MAP<DATE, INT>' },
        ],
        primary_key: ['user', 'day'],
      },
      bucket_keys: ['user'],
      bucket_count: 2,
    })
    const profiles = `${TABLES}/profiles`
    const visit = { at: '2024-05-06T07:08:09.123Z', pages: ['/a', '/b'] }
    const counts = [
      { key: '2024-05-06', value: 3 },
      { key: '2024-05-07', value: null },
    ]
    await ok(gw, 'POST', `${profiles}/upsert`, {
      rows: [
        { user: 'ann', day: '2024-05-06', visits: [visit, null], counts },
        { user: 'ann', day: '2024-05-07', visits: [] },
        { user: 'bob', day: '2024-05-06' },
      ],
    })
    await ok(gw, 'POST', `${profiles}/upsert`, {
      columns: ['user', 'day', 'counts'],
      rows: [{ user: 'ann', day: '2024-05-07', counts: [['2024-01-01', 1]] }],
    })
    const ann6 = { user: 'ann', day: '2024-05-06', visits: [visit, null], counts }
    const ann7 = { user: 'ann', day: '2024-05-07', visits: [], counts: [{ key: '2024-01-01', value: 1 }] }
    const looked = await ok(gw, 'POST', `${profiles}/lookup`, {
      keys: [
        { user: 'ann', day: '2024-05-07' },
        { user: 'ann', day: '2024-05-06' },
      ],
    })
    expect(looked.rows).toEqual([ann7, ann6])
    const prefixed = await ok(gw, 'POST', `${profiles}/prefix-lookup`, {
      columns: ['user'],
      prefixes: [{ user: 'ann' }],
    })
    expect(prefixed.results[0].rows).toEqual([ann6, ann7])
    const snapshot = await ok(gw, 'GET', `${profiles}/snapshot?columns=visits,user`)
    const byVisits = (r: { visits: unknown[] | null }) => r.visits?.length ?? -1
    expect([...snapshot.rows].sort((a, b) => byVisits(a) - byVisits(b))).toEqual([
      { visits: null, user: 'bob' },
      { visits: [], user: 'ann' },
      { visits: ann6.visits, user: 'ann' },
    ])
    // The stored values are the SDK's: a ROW as an array, a MAP as a Map.
    const sdk = await gw.backend.connection.getTable({ databaseName: 'db', tableName: 'profiles' })
    const row = (await sdk.newLookup().createLookuper().lookup({ user: 'ann', day: 19849 })).singletonRow()
    expect(row?.[2]).toEqual([[new Timestamp(1_714_979_289_123), ['/a', '/b']], null])
  })
})

function mapOf(key: Utf8, value: unknown) {
  return new Map_(
    new ArrowJsField(
      'entries',
      new Struct([new ArrowJsField('key', key, false), new ArrowJsField('value', value as never, true)]),
    ) as never,
  )
}
