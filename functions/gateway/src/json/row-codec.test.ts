import { DataTypes, Decimal, notNull, type RowType, Timestamp } from '@sluice/core'
import { describe, expect, it } from 'vitest'
import { GatewayError } from '../errors/gateway-error.js'
import { LongNumber } from './long-number.js'
import { parseJsonBody } from './parse-json.js'
import { JsonRowReader, JsonRowWriter } from './row-codec.js'

const field = (name: string, type: RowType['fields'][number]['type'], fieldId = 0) => ({
  name,
  type,
  fieldId,
})
const rowType = (...fields: RowType['fields'][number][]): RowType => ({
  type: 'ROW',
  nullable: false,
  fields,
})

function readOne(type: RowType['fields'][number]['type'], json: unknown): unknown {
  return new JsonRowReader(rowType(field('v', type))).read({ v: json }, 'rows[0]')[0]
}

function message(type: RowType['fields'][number]['type'], json: unknown): string {
  try {
    readOne(type, json)
  } catch (e) {
    expect(e).toBeInstanceOf(GatewayError)
    expect((e as GatewayError).code).toBe('invalid_argument')
    return (e as Error).message
  }
  throw new Error(`expected ${JSON.stringify(json)} to be refused`)
}

function roundTrip(type: RowType['fields'][number]['type'], json: unknown): unknown {
  const rt = rowType(field('v', type))
  return new JsonRowWriter(rt).write(new JsonRowReader(rt).read({ v: json }, 'r')).v
}

describe('JSON ↔ Fluss values', () => {
  it('maps booleans and small integers, with ranges', () => {
    expect(roundTrip(DataTypes.BOOLEAN(), true)).toBe(true)
    expect(message(DataTypes.BOOLEAN(), 'true')).toMatch(/^rows\[0\]\.v: expected true or false, got string/)
    expect(roundTrip(DataTypes.TINYINT(), -128)).toBe(-128)
    expect(message(DataTypes.TINYINT(), 128)).toMatch(/\[-128, 127\]/)
    expect(message(DataTypes.SMALLINT(), 40_000)).toMatch(/\[-32768, 32767\]/)
    expect(roundTrip(DataTypes.INT(), 2_147_483_647)).toBe(2_147_483_647)
    expect(message(DataTypes.INT(), 2_147_483_648)).toMatch(/INT range/)
    expect(message(DataTypes.INT(), 1.5)).toMatch(/expected an integer number/)
    expect(message(DataTypes.INT(), '1')).toMatch(/expected an integer number, got string/)
  })

  it('maps BIGINT from strings or safe numbers, and writes strings', () => {
    expect(readOne(DataTypes.BIGINT(), '9223372036854775807')).toBe(9223372036854775807n)
    expect(readOne(DataTypes.BIGINT(), 42)).toBe(42n)
    expect(roundTrip(DataTypes.BIGINT(), -7)).toBe('-7')
    expect(message(DataTypes.BIGINT(), '9223372036854775808')).toMatch(/BIGINT range/)
    expect(message(DataTypes.BIGINT(), 2 ** 53)).toMatch(/safe integer/)
    expect(message(DataTypes.BIGINT(), new LongNumber('123456789012345678901'))).toMatch(/safe integer/)
    expect(message(DataTypes.BIGINT(), '12a')).toMatch(/decimal string/)
  })

  it('maps FLOAT and DOUBLE, with NaN and infinities as strings', () => {
    expect(roundTrip(DataTypes.DOUBLE(), 0.1)).toBe(0.1)
    expect(roundTrip(DataTypes.DOUBLE(), 'NaN')).toBe('NaN')
    expect(roundTrip(DataTypes.DOUBLE(), '-Infinity')).toBe('-Infinity')
    expect(roundTrip(DataTypes.FLOAT(), 0.1)).toBe(0.1)
    expect(new JsonRowWriter(rowType(field('f', DataTypes.FLOAT()))).write([Math.fround(0.1)]).f).toBe(0.1)
    expect(message(DataTypes.FLOAT(), 1e39)).toMatch(/FLOAT range/)
    expect(message(DataTypes.DOUBLE(), Infinity)).toMatch(/out of range/)
    expect(message(DataTypes.DOUBLE(), 'inf')).toMatch(/"NaN", "Infinity"/)
    expect(readOne(DataTypes.DOUBLE(), new LongNumber('0.30000000000000004'))).toBe(0.30000000000000004)
  })

  it('maps DECIMAL from strings and exact numbers, and writes the column scale', () => {
    const t = DataTypes.DECIMAL(10, 2)
    expect(readOne(t, '-123.4')).toEqual(new Decimal(-12340n, 2))
    expect(roundTrip(t, '5')).toBe('5.00')
    expect(roundTrip(t, 1.5)).toBe('1.50')
    expect(roundTrip(t, 1e3)).toBe('1000.00')
    expect(roundTrip(t, '0.100')).toBe('0.10')
    expect(message(t, '1.234')).toMatch(/^rows\[0\]\.v: 1\.234 does not fit DECIMAL\(10, 2\)/)
    expect(message(t, '123456789.1')).toMatch(/precision 10/)
    expect(message(t, '1e3')).toMatch(/DECIMAL as a string/)
    expect(message(t, new LongNumber('0.30000000000000004'))).toMatch(/does not fit/)
    expect(
      roundTrip(DataTypes.DECIMAL(38, 18), new LongNumber('12345678901234567890.123456789012345678')),
    ).toBe('12345678901234567890.123456789012345678')
  })

  it('maps CHAR, STRING, BINARY and BYTES', () => {
    expect(roundTrip(DataTypes.STRING(), 'héllo')).toBe('héllo')
    expect(message(DataTypes.CHAR(3), 'abcd')).toMatch(/4 characters exceed the length 3/)
    expect(message(DataTypes.STRING(), '\ud800')).toMatch(/lone surrogate/)
    expect(roundTrip(DataTypes.BYTES(), 'AAEC/w==')).toBe('AAEC/w==')
    expect(readOne(DataTypes.BYTES(), 'AAEC/w==')).toEqual(new Uint8Array([0, 1, 2, 255]))
    expect(message(DataTypes.BYTES(), 'AAEC_w')).toMatch(/standard base64/)
    expect(message(DataTypes.BINARY(2), 'AAEC')).toMatch(/exactly 2 bytes/)
  })

  it('maps DATE and TIME', () => {
    expect(readOne(DataTypes.DATE(), '1970-01-02')).toBe(1)
    expect(roundTrip(DataTypes.DATE(), '2024-02-29')).toBe('2024-02-29')
    expect(roundTrip(DataTypes.DATE(), '0001-01-01')).toBe('0001-01-01')
    expect(message(DataTypes.DATE(), '2023-02-29')).toMatch(/not a calendar date/)
    expect(message(DataTypes.DATE(), '2023-2-1')).toMatch(/YYYY-MM-DD/)
    expect(readOne(DataTypes.TIME(3), '01:00:00.5')).toBe(3_600_500)
    expect(roundTrip(DataTypes.TIME(3), '23:59:59.999')).toBe('23:59:59.999')
    expect(roundTrip(DataTypes.TIME(0), '12:00:00')).toBe('12:00:00')
    expect(message(DataTypes.TIME(0), '12:00:00.5')).toMatch(/keeps 0 fraction digits/)
    expect(message(DataTypes.TIME(3), '24:00:00')).toMatch(/not a valid time/)
  })

  it('maps TIMESTAMP without a zone and TIMESTAMP_LTZ with one, or epoch micros', () => {
    const ts = DataTypes.TIMESTAMP(6)
    expect(readOne(ts, '1970-01-01T00:00:01.000001')).toEqual(new Timestamp(1000, 1000))
    expect(roundTrip(ts, '2024-05-06 07:08:09.12')).toBe('2024-05-06T07:08:09.12')
    expect(readOne(ts, '1500000')).toEqual(new Timestamp(1500, 0))
    expect(readOne(ts, -1)).toEqual(new Timestamp(-1, 999_000))
    expect(message(ts, '2024-05-06T07:08:09Z')).toMatch(/has no time zone/)
    expect(message(DataTypes.TIMESTAMP(3), '2024-05-06T07:08:09.1234')).toMatch(/keeps 3 fraction digits/)
    expect(message(DataTypes.TIMESTAMP(3), 1_000_001)).toMatch(/keeps 3 fraction digits/)
    const ltz = DataTypes.TIMESTAMP_LTZ(9)
    expect(roundTrip(ltz, '2024-05-06T09:08:09.123456789+02:00')).toBe('2024-05-06T07:08:09.123456789Z')
    expect(message(ltz, '2024-05-06T07:08:09')).toMatch(/needs a zone/)
    expect(message(ltz, 1.5)).toMatch(/safe integer/)
  })

  it('maps ARRAY, MAP and ROW values recursively', () => {
    expect(roundTrip(DataTypes.ARRAY(DataTypes.BIGINT()), ['1', 2, null])).toEqual(['1', '2', null])
    expect(roundTrip(DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()), { a: 1 })).toEqual({ a: 1 })
    expect(roundTrip(DataTypes.MAP(DataTypes.INT(), DataTypes.STRING()), [[1, 'x']])).toEqual([
      { key: 1, value: 'x' },
    ])
    const row = DataTypes.ROW([field('a', DataTypes.INT()), field('b', DataTypes.DATE())])
    expect(roundTrip(row, { a: 1, b: '2020-01-01' })).toEqual({ a: 1, b: '2020-01-01' })
    expect(message(DataTypes.ARRAY(DataTypes.INT()), [1, 'x'])).toMatch(
      /^rows\[0\]\.v\[1\]: expected an integer/,
    )
    expect(message(row, { a: 1, c: 2 })).toMatch(/rows\[0\]\.v\.c: no such field/)
  })

  it('reads rows whole: missing columns are null, unknown columns and NOT NULL violations name the row', () => {
    const rt = rowType(field('id', notNull(DataTypes.INT())), field('name', DataTypes.STRING()))
    const reader = new JsonRowReader(rt)
    expect(reader.readAll([{ id: 1 }, { id: 2, name: 'b' }], 'rows')).toEqual([
      [1, null],
      [2, 'b'],
    ])
    expect(() => reader.readAll([{ id: 1 }, { name: 'x' }], 'rows')).toThrow(/^rows\[1\]\.id: .*NOT NULL/)
    expect(() => reader.readAll([{ id: 1, nope: 1 }], 'rows')).toThrow(/^rows\[0\]\.nope: no such column/)
    expect(() => reader.readAll([[1, 'a']], 'rows')).toThrow(/^rows\[0\]: expected a JSON object/)
  })

  it('restricts and requires columns for keys and partial updates', () => {
    const rt = rowType(field('id', notNull(DataTypes.INT())), field('v', notNull(DataTypes.STRING())))
    const keys = new JsonRowReader(rt, { allowed: ['id'], required: ['id'] })
    expect(keys.read({ id: 3 }, 'keys[0]')).toEqual([3, null])
    expect(() => keys.read({ id: 3, v: 'x' }, 'keys[0]')).toThrow(
      /keys\[0\]\.v: this column cannot be given here/,
    )
    expect(() => keys.read({}, 'keys[0]')).toThrow(/keys\[0\]\.id: a value is required/)
  })

  it('converts a parsed body with long numbers exactly', () => {
    const rt = rowType(field('d', DataTypes.DECIMAL(20, 1)), field('b', DataTypes.BIGINT()))
    const body = parseJsonBody(new TextEncoder().encode('{"d":1234567890123456789.5,"b":"1"}'), 8)
    expect(new JsonRowReader(rt).read(body, 'rows[0]')).toEqual([new Decimal(12345678901234567895n, 1), 1n])
  })
})
