import { Decimal, Timestamp } from '@sluice/core/row'
import { describe, expect, it } from 'vitest'
import { jsonToValue, parseColumnType, textToValue, ValueError, valueToJson } from './values.js'

const t = parseColumnType

describe('nested values on the command line', () => {
  const type = t('MAP<STRING, ARRAY<ROW<score DECIMAL(5, 2), at TIMESTAMP_LTZ(3), tags ARRAY<STRING>>>>')

  it('reads MAP objects, ROW objects by field name and arrays, and prints them back the same', () => {
    const json = {
      eu: [{ score: '1.50', at: '2024-01-02T03:04:05.006Z', tags: ['a', null] }, null],
      us: [],
    }
    const value = jsonToValue(type, json)
    expect(value).toEqual(
      new Map([
        [
          'eu',
          [
            [new Decimal(150n, 2), new Timestamp(Date.parse('2024-01-02T03:04:05.006Z'), 0), ['a', null]],
            null,
          ],
        ],
        ['us', []],
      ]),
    )
    expect(valueToJson(type, value)).toEqual(json)
  })

  it('takes MAP entries and pairs for any key type, prints entries for non-string keys, ROW arrays by position', () => {
    const byId = t('MAP<BIGINT, ROW<x INT, y STRING>>')
    const value = jsonToValue(byId, [{ key: 7, value: [1, 'a'] }, ['9007199254740993', { x: 2 }]])
    expect(value).toEqual(
      new Map([
        [7n, [1, 'a']],
        [9007199254740993n, [2, null]],
      ]),
    )
    expect(valueToJson(byId, value)).toEqual([
      { key: 7, value: { x: 1, y: 'a' } },
      { key: '9007199254740993', value: { x: 2, y: null } },
    ])
  })

  it('reads nested values from JSON text in text cells', () => {
    expect(textToValue(t('ARRAY<INT>'), '[1, null, 3]')).toEqual([1, null, 3])
    expect(textToValue(t('ROW<a INT, b STRING>'), '{"b": "x"}')).toEqual([null, 'x'])
    expect(textToValue(t('MAP<STRING, INT>'), '')).toBeNull()
  })

  it.each([
    ['MAP<STRING, INT>', { a: 'x' }, /expected INTEGER/],
    ['MAP<INT, INT>', { 1: 2 }, /expected MAP/],
    ['MAP<INT, INT>', [[1, 2], { key: 1, value: 3 }], /MAP key 1 appears twice/],
    ['MAP<INT, INT>', [{ key: null, value: 3 }], /MAP keys cannot be null/],
    ['MAP<INT, INT>', [[1, 2, 3]], /expected a MAP entry/],
    ['ROW<a INT>', { a: 1, b: 2 }, /unknown ROW field\(s\): b/],
    ['ROW<a INT, b INT>', [1], /expected 2 ROW fields, got 1/],
    ['ROW<a INT>', 'a', /expected ROW/],
  ])('refuses %s from %j', (text, json, message) => {
    expect(() => jsonToValue(t(text), json)).toThrow(ValueError)
    expect(() => jsonToValue(t(text), json)).toThrow(message)
  })

  it('refuses a text cell that is not JSON', () => {
    expect(() => textToValue(t('ARRAY<INT>'), '[1,')).toThrow(/expected ARRAY as JSON/)
  })
})
