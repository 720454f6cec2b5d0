import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import { FlussError } from '../../errors/index.js'
import { decimalString, fromItem, toItem } from './item-codec.js'

describe('item codec', () => {
  it('stores top-level fields as attributes of their own type', () => {
    const item = toItem('TABLE#1', 'LAKE', 3, {
      offset: '9223372036854775807',
      epoch: 7,
      ok: true,
      none: null,
      m: { a: [1, 'x'] },
    })
    expect(item).toEqual({
      pk: { S: 'TABLE#1' },
      sk: { S: 'LAKE' },
      version: { N: '3' },
      offset: { S: '9223372036854775807' },
      epoch: { N: '7' },
      ok: { BOOL: true },
      none: { NULL: true },
      m: { M: { a: { L: [{ N: '1' }, { S: 'x' }] } } },
    })
    expect(fromItem(item)).toEqual({
      pk: 'TABLE#1',
      sk: 'LAKE',
      version: 3,
      value: { offset: '9223372036854775807', epoch: 7, ok: true, none: null, m: { a: [1, 'x'] } },
    })
  })

  it('writes numbers in plain decimal notation', () => {
    expect([0, -42, 0.125, 1e-7, -1.5e-7, 1.2345e-20, 0.1 + 0.2].map(decimalString)).toEqual([
      '0',
      '-42',
      '0.125',
      '0.0000001',
      '-0.00000015',
      '0.000000000000000000012345',
      '0.30000000000000004',
    ])
    expect(Number(decimalString(1.2345e-20))).toBe(1.2345e-20)
  })

  it('refuses items it did not write', () => {
    const bad: Record<string, AttributeValue>[] = [
      { pk: { S: 'a' }, sk: { S: 'b' } },
      { pk: { S: 'a' }, sk: { S: 'b' }, version: { N: '0' } },
      { pk: { S: 'a' }, sk: { S: 'b' }, version: { N: '1' }, tags: { SS: ['x'] } },
    ]
    for (const item of bad) {
      let e: unknown
      try {
        fromItem(item)
      } catch (err) {
        e = err
      }
      expect(e).toBeInstanceOf(FlussError)
      expect((e as FlussError).errorName).toBe('CORRUPT_MESSAGE')
    }
  })
})
