import { DataTypes, notNull, type RowType } from '@sluice/core'
import { describe, expect, it } from 'vitest'
import { canonicalValue, generalBodyRows, type WriteKindSpec } from '../testing/json-body-oracle.js'
import { mutateBytes, Prng, RandomJsonBodies } from '../testing/random-json-bodies.js'
import { JsonBodyRowReader } from './body-rows.js'
import { hasControl } from './json-bytes.js'
import { JsonRowReader } from './row-codec.js'
import { type SlicingBuffer, TextWindow } from './text-window.js'

const ROW_TYPE: RowType = DataTypes.ROW(
  (
    [
      ['id', notNull(DataTypes.BIGINT())],
      ['flag', DataTypes.BOOLEAN()],
      ['tiny', DataTypes.TINYINT()],
      ['small', DataTypes.SMALLINT()],
      ['n', DataTypes.INT()],
      ['f', DataTypes.FLOAT()],
      ['d', DataTypes.DOUBLE()],
      ['price', DataTypes.DECIMAL(10, 2)],
      ['wide', DataTypes.DECIMAL(38, 10)],
      ['code', DataTypes.CHAR(3)],
      ['s', DataTypes.STRING()],
      ['bin', DataTypes.BINARY(4)],
      ['bytes', DataTypes.BYTES()],
      ['day', DataTypes.DATE()],
      ['tod', DataTypes.TIME(3)],
      ['ts', DataTypes.TIMESTAMP(6)],
      ['ltz', DataTypes.TIMESTAMP_LTZ(9)],
      ['arr', DataTypes.ARRAY(DataTypes.INT())],
      ['m', DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())],
      ['r', DataTypes.ROW([{ name: 'a', type: DataTypes.INT(), fieldId: 0 }])],
      ['ünï "q"', DataTypes.STRING()],
    ] as const
  ).map(([name, type], fieldId) => ({ name, type, fieldId })),
)

const MAX_DEPTH = 8
const MAX_ROWS = 50

const APPEND: WriteKindSpec = { member: 'rows', options: {} }
const UPSERT: WriteKindSpec = { member: 'rows', options: { required: ['id'] } }
const DELETE: WriteKindSpec = { member: 'keys', options: { allowed: ['id'], required: ['id'] } }

const readers = new Map<WriteKindSpec, JsonBodyRowReader>()
function fastReader(kind: WriteKindSpec): JsonBodyRowReader {
  let reader = readers.get(kind)
  if (reader === undefined) {
    reader = new JsonBodyRowReader(new JsonRowReader(ROW_TYPE, kind.options).columns, kind.member)
    readers.set(kind, reader)
  }
  return reader
}

/**
 * Reads `body` both ways: when the fast path gives rows, the general path must give the same rows;
 * when the general path refuses the body, the fast path must answer undefined. Returns whether
 * the fast path took the body.
 */
function compare(
  kind: WriteKindSpec,
  body: string | Uint8Array,
  maxRows = MAX_ROWS,
  maxDepth = MAX_DEPTH,
): boolean {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  const fast = fastReader(kind).read(bytes, maxRows, maxDepth)
  const slow = generalBodyRows(ROW_TYPE, kind, bytes, maxRows, maxDepth)
  const what = Buffer.from(bytes).toString('utf8').slice(0, 400)
  if ('error' in slow) {
    const why = `${slow.error.code}: ${slow.error.message}`
    expect(fast, `fast path took a body the general path refuses (${why}): ${what}`).toBeUndefined()
    return false
  }
  if (fast === undefined) return false
  expect(
    fast.map(r => r.map(canonicalValue)),
    what,
  ).toEqual(slow.rows.map(r => r.map(canonicalValue)))
  return true
}

const row = (members: string) => `{"id":"1"${members}}`
/** A row with `literal` as the value of `column` (and an id). */
const rowWith = (column: string, literal: string) =>
  column === 'id' ? `{"id":${literal}}` : `{"id":"1","${column}":${literal}}`
const body = (...rows: string[]) => `{"rows":[${rows.join(',')}]}`

describe('JsonBodyRowReader gives the rows of the general path or leaves the body to it', () => {
  it('takes plain bodies of every non-nested column type', () => {
    const plain = row(
      ',"flag":true,"tiny":-128,"small":32767,"n":-2147483648,"f":1.5,"d":-0.25e-3,"price":"12.34",' +
        '"wide":"12345678901234567890.5","code":"abc","s":"x","bin":"AAECAw==","bytes":"","day":"2024-02-29",' +
        '"tod":"23:59:59.999","ts":"2024-01-01T00:00:00.123456","ltz":"1999-12-31T23:59:59.123456789+05:30",' +
        '"ünï \\"q\\"":"é","arr":null,"m":null,"r":null',
    )
    expect(compare(APPEND, body(plain, row(''), '{"id":7}'))).toBe(true)
    expect(compare(UPSERT, body(plain))).toBe(true)
    expect(compare(DELETE, '{"keys":[{"id":"1"},{"id":-0}]}')).toBe(true)
  })

  it('decodes unicode, escapes and surrogates as JSON.parse does', () => {
    const strings = [
      '"\\u00e9\\u4e2d\\ud83d\\ude00"',
      '"😀 中 é ß"',
      '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
      '"\u007f"',
      '"a\\u0000b"',
    ]
    for (const s of strings) expect(compare(APPEND, body(row(`,"s":${s}`))), s).toBe(true)
    expect(compare(APPEND, body(`{"\\u0069d":"1","\\u0073":"x"}`))).toBe(true)
    expect(compare(APPEND, body(`{"id":"1","ünï \\"q\\"":"y"}`))).toBe(true)
    expect(compare(APPEND, body(`{"id":"1","\\u00fcn\\u00ef \\u0022q\\u0022":"y"}`))).toBe(true)
    // Lone surrogates (escaped) parse, but a STRING value must be well-formed: both paths refuse them.
    for (const bad of [
      '"\\ud800"',
      '"\\udfff\\ud800"',
      '"a\u0001b"',
      '"a\nb"',
      '"\\x41"',
      '"\\u12"',
      '"\\ud83d\\u"',
      '"abc',
    ]) {
      expect(compare(APPEND, body(row(`,"s":${bad}`))), bad).toBe(false)
    }
  })

  it('ignores a byte order mark and JSON whitespace, nothing else', () => {
    expect(compare(APPEND, `\ufeff${body(row(''))}`)).toBe(true)
    expect(compare(APPEND, ` \t\r\n{ "rows" :\n[ {"id" : "1" ,\t"s" : "a" } ]\r\n} \n`)).toBe(true)
    for (const bad of [`\ufeff\ufeff${body(row(''))}`, `\u00a0${body(row(''))}`, `${body(row(''))}x`]) {
      expect(compare(APPEND, bad)).toBe(false)
    }
    expect(compare(APPEND, `${body(row(''))}\u000b`)).toBe(false)
  })

  it('leaves repeated, missing, unknown and not allowed members to the general path', () => {
    const cases = [
      body(row(',"s":"a","s":"b"')),
      body(row(',"nope":1')),
      body('{"s":"x"}'),
      body('{"id":null}'),
      body('{}'),
      '{"rows":[]}',
      '{"rows":[1]}',
      '{"rows":{}}',
      '{"rows":[{"id":"1"}],"rows":[{"id":"2"}]}',
      '{"rows":[{"id":"1"}],"columns":["id"]}',
      '{"columns":["id"],"rows":[{"id":"1"}]}',
      '{"Rows":[{"id":"1"}]}',
      '{}',
      '[]',
      '',
      '   ',
      'null',
    ]
    for (const c of cases) expect(compare(APPEND, c), c).toBe(false)
    expect(compare(DELETE, '{"keys":[{"id":"1","s":"a"}]}')).toBe(false)
    expect(compare(DELETE, '{"rows":[{"id":"1"}]}')).toBe(false)
    expect(compare(UPSERT, body('{"s":"a"}'))).toBe(false)
  })

  it('reads numbers at the limits exactly as JSON.parse, leaving long literals to the general path', () => {
    const numbers = [
      ['id', '9007199254740991', true],
      ['id', '-9007199254740991', true],
      ['id', '9007199254740992', false],
      ['id', '123456789012345', true],
      ['id', '1234567890123456', true],
      ['n', '2147483647', true],
      ['n', '2147483648', false],
      ['n', '1e2', true],
      ['n', '100.0', true],
      ['n', '-0', true],
      ['n', '1.5', false],
      ['n', '01', false],
      ['n', '1.', false],
      ['n', '.5', false],
      ['n', '1e', false],
      ['n', '--1', false],
      ['n', '+1', false],
      ['d', '1.7976931348623157e308', false],
      ['d', '1.5e308', true],
      ['d', '5e-324', true],
      ['d', '1e400', false],
      ['d', '0.1', true],
      ['d', '0.30000000000000004', false],
      ['d', '-0.0', true],
      ['d', '1E-7', true],
      ['price', '1.25', true],
      ['price', '1.005', false],
      ['wide', '123456789012345678.1234567891', false],
    ] as const
    for (const [column, literal, taken] of numbers) {
      const text = body(rowWith(column, literal))
      expect(compare(APPEND, text), text).toBe(taken)
    }
  })

  it('refuses invalid UTF-8, truncated input, deep nesting and too many rows', () => {
    const good = Buffer.from(body(row(',"s":"é"')))
    expect(compare(APPEND, good)).toBe(true)
    const bad = [
      Buffer.concat([good.subarray(0, 20), Buffer.from([0xff]), good.subarray(20)]),
      Buffer.from(body(row(',"s":"\xed\xa0\x80"')), 'latin1'),
      Buffer.from(body(row(',"s":"\xc0\xaf"')), 'latin1'),
    ]
    for (const b of bad) expect(compare(APPEND, b)).toBe(false)
    for (let cut = 0; cut < good.length; cut++) compare(APPEND, good.subarray(0, cut))
    expect(compare(APPEND, body(row(`,"arr":${'['.repeat(20)}${']'.repeat(20)}`)))).toBe(false)
    expect(compare(APPEND, body(row(',"arr":[1,2],"m":{"a":1},"r":{"a":1}')))).toBe(false)
    expect(compare(APPEND, body(row('')), MAX_ROWS, 2)).toBe(false)
    const rows = (n: number) => body(...Array.from({ length: n }, () => row('')))
    expect(compare(APPEND, rows(3), 3)).toBe(true)
    expect(compare(APPEND, rows(4), 3)).toBe(false)
  })

  it('agrees with the general path on random valid and mutated bodies', () => {
    const rnd = new Prng(0x5eed)
    const rows = new RandomJsonBodies(ROW_TYPE, rnd)
    const keys = new RandomJsonBodies(DataTypes.ROW([ROW_TYPE.fields[0]]), rnd)
    let valid = 0
    let taken = 0
    for (let i = 0; i < 1000; i++) {
      const kind = rnd.pick([APPEND, APPEND, UPSERT, DELETE])
      const gen = kind === DELETE ? keys : rows
      const bytes = Buffer.from(gen.body(kind.member, 1 + rnd.int(4), rnd.pick([0, 0, 0.01, 0.1])))
      const generalTakes = !('error' in generalBodyRows(ROW_TYPE, kind, bytes, MAX_ROWS, MAX_DEPTH))
      if (compare(kind, bytes)) taken++
      if (generalTakes) valid++
      let mutated: Uint8Array = bytes
      for (let m = 0; m < 1 + rnd.int(3); m++) {
        mutated = mutateBytes(rnd, mutated)
        compare(kind, mutated)
      }
    }
    // Of the bodies the general path takes, the fast path must take most (long number literals,
    // nested values and an escaped member name leave some to the general path).
    expect(valid).toBeGreaterThan(200)
    expect(taken / valid).toBeGreaterThan(0.6)
  })
})

describe('large bodies', () => {
  it('decode strings across text windows, long strings and non-ASCII parts alike', () => {
    const rnd = new Prng(99)
    const rows: string[] = []
    for (let i = 0; i < 3000; i++) {
      const text =
        i % 500 === 7
          ? 'x'.repeat(70_000)
          : `row ${i} ${i % 97 === 0 ? 'é中😀' : 'plain'} ${'ab'.repeat(rnd.int(40))}`
      rows.push(`{"id":${i},"s":${JSON.stringify(text)},"code":"c${i % 10}"}`)
    }
    expect(compare(APPEND, body(...rows), 5000)).toBe(true)
  })
})

describe('TextWindow', () => {
  it('gives every range as Buffer decodes it, front to back', () => {
    const rnd = new Prng(5)
    const text = Array.from({ length: 40_000 }, () => (rnd.chance(0.001) ? 'é' : 'abc'[rnd.int(3)])).join('')
    const buf = Buffer.from(text) as SlicingBuffer
    const window = new TextWindow()
    window.reset(buf)
    let at = 0
    while (at < buf.length) {
      const end = Math.min(buf.length, at + rnd.int(rnd.chance(0.01) ? 50_000 : 200))
      // Ranges never cut a UTF-8 sequence (body strings are cut at ASCII quotes).
      const safeEnd = end < buf.length && (buf[end] & 0xc0) === 0x80 ? end + 1 : end
      expect(window.text(at, safeEnd)).toBe(buf.toString('utf8', at, safeEnd))
      at = safeEnd + rnd.int(3)
    }
  })
})

describe('hasControl', () => {
  it('finds a byte below 0x20 at any offset and alignment, and only then', () => {
    const rnd = new Prng(7)
    const backing = Buffer.alloc(300)
    for (let round = 0; round < 2000; round++) {
      for (let i = 0; i < backing.length; i++) backing[i] = 0x20 + rnd.int(0xe0)
      if (rnd.chance(0.5)) backing[rnd.int(backing.length)] = rnd.int(0x20)
      const offset = rnd.int(8)
      const view = backing.subarray(offset, offset + rnd.int(backing.length - offset))
      const start = rnd.int(view.length + 1)
      const end = start + rnd.int(view.length - start + 1)
      const naive = view.subarray(start, end).some(b => b < 0x20)
      expect(hasControl(view, start, end)).toBe(naive)
    }
  })
})
