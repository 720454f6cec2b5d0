import { describe, expect, it } from 'vitest'
import { FlussError } from '../../errors/index.js'
import { type DataType, DataTypes, notNull, type RowType } from '../../types/data-type.js'
import { CompactedRowDecoder, CompactedRowEncoder } from '../compacted/compacted-row.js'
import { nestedRowCodec } from '../compacted/field-codec.js'
import { Decimal, type Row, Timestamp, type Value } from '../value.js'
import { arrayCodec, mapCodec } from './binary-codec.js'

const { ARRAY, MAP, ROW, INT, STRING } = DataTypes

function row(...types: DataType[]): RowType {
  return ROW(types.map((type, i) => ({ name: `f${i}`, type, fieldId: i })))
}

function corrupt(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('CORRUPT_RECORD_EXCEPTION')
    return (e as FlussError).message
  }
  throw new Error('expected CORRUPT_RECORD_EXCEPTION')
}

function hex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s.replace(/\s/g, ''), 'hex'))
}

describe('BinaryArray and BinaryMap codecs', () => {
  const ints = arrayCodec(INT(), nestedRowCodec)
  const strings = arrayCodec(STRING(), nestedRowCodec)

  it('lays out size, null bits, 8-aligned slots and the variable part', () => {
    expect(Buffer.from(ints.encode([1, null, 3])).toString('hex')).toBe(
      '03000000' + '02000000' + '01000000' + '00000000' + '03000000' + '00000000',
    )
    // 8 bytes do not fit in the slot: (offset 16 << 32 | length 8), then the padded bytes
    expect(Buffer.from(strings.encode(['12345678'])).toString('hex')).toBe(
      '01000000' + '00000000' + '0800000010000000' + '3132333435363738',
    )
  })

  it('round-trips deep nesting: ARRAY<MAP<STRING, ROW<values ARRAY<FLOAT>, n ARRAY<ARRAY<BIGINT>>>>>', () => {
    const inner = ROW([
      { name: 'values', type: ARRAY(DataTypes.FLOAT()), fieldId: 1 },
      { name: 'n', type: ARRAY(ARRAY(DataTypes.BIGINT())), fieldId: 2 },
    ])
    const type = row(ARRAY(MAP(STRING(), inner)), MAP(DataTypes.DECIMAL(20, 2), DataTypes.TIMESTAMP(9)))
    const values: Row = [
      [
        new Map<Value, Value>([
          [
            'k'.repeat(300),
            [
              [0.5, -1],
              [[1n, null], [], null, [-(2n ** 63n)]],
            ],
          ],
          ['', [null, null]],
        ]),
        new Map(),
        null,
      ],
      new Map<Value, Value>([
        [new Decimal(-12345678901234567n, 2), new Timestamp(-62_135_596_800_000, 1)],
        [new Decimal(0n, 2), null],
      ]),
    ]
    const bytes = new CompactedRowEncoder(type).encode(values)
    expect(new CompactedRowDecoder(type).decode(bytes)).toEqual(values)
  })

  it('round-trips large arrays and maps whose variable part grows', () => {
    const long = Array.from({ length: 1000 }, (_, i) => (i % 7 === 0 ? null : `value ${i} `.repeat(i % 5)))
    expect(strings.decode(strings.encode(long), 0, strings.encode(long).length)).toEqual(long)
    const type = MAP(INT(), ARRAY(STRING()))
    const codec = mapCodec(type, nestedRowCodec)
    const big = new Map<Value, Value>(Array.from({ length: 300 }, (_, i) => [i, [String(i), null]]))
    const encoded = codec.encode(big)
    expect(codec.decode(encoded, 0, encoded.length)).toEqual(big)
  })

  it('reads a map whose entries repeat a key as the last one wins (a JS Map has unique keys)', () => {
    const keys = ints.encode([1, 1])
    const values = ints.encode([10, 20])
    const bytes = new Uint8Array(4 + keys.length + values.length)
    new DataView(bytes.buffer).setInt32(0, keys.length, true)
    bytes.set(keys, 4)
    bytes.set(values, 4 + keys.length)
    expect(mapCodec(MAP(INT(), INT()), nestedRowCodec).decode(bytes, 0, bytes.length)).toEqual(
      new Map([[1, 20]]),
    )
  })

  it.each([
    ['a negative size', () => ints.decode(hex('ffffffff 00000000'), 0, 8), /negative size -1/],
    ['a size past the end', () => ints.decode(hex('05000000 00000000'), 0, 8), /5 elements need 28 bytes/],
    ['fewer than 4 bytes', () => ints.decode(hex('0100'), 0, 2), /cannot hold an array/],
    [
      'a string outside the array',
      () => strings.decode(hex('01000000 00000000 0800000040000000'), 0, 16),
      /element 0 refers to \[64, \+8\)/,
    ],
    [
      'an inline length above 7',
      () => strings.decode(hex('01000000 00000000 0000000000000088'), 0, 16),
      /inline length 8/,
    ],
    [
      'invalid UTF-8',
      () => strings.decode(hex('01000000 00000000 ff00000000000081'), 0, 16),
      /invalid UTF-8 in element 0/,
    ],
    [
      'a map key array longer than the map',
      () => mapCodec(MAP(INT(), INT()), nestedRowCodec).decode(hex('40000000 00000000'), 0, 8),
      /map key array of 64 bytes/,
    ],
    [
      'a map with more keys than values',
      () =>
        mapCodec(MAP(INT(), INT()), nestedRowCodec).decode(
          hex('10000000 02000000 00000000 01000000 02000000 01000000 00000000 01000000 00000000'),
          0,
          36,
        ),
      /2 keys and 1 values/,
    ],
  ])('rejects %s', (_name, fn, message) => {
    expect(corrupt(fn)).toMatch(message)
  })

  it('rejects a nested array that overruns the compacted row', () => {
    const type = row(ARRAY(INT()))
    expect(corrupt(() => new CompactedRowDecoder(type).decode(hex('00 10 03000000 00000000')))).toMatch(
      /length 16 exceeds/,
    )
  })

  it('checks every nested value before encoding, naming its path', () => {
    const type = row(notNull(INT()), MAP(STRING(), ARRAY(ROW([{ name: 'v', type: INT(), fieldId: 9 }]))))
    const encoder = new CompactedRowEncoder(type)
    const bad = new Map<Value, Value>([['a', [[1], ['2']]]])
    expect(() => encoder.encode([1, bad])).toThrow(/column 'f1\["a"\]\[1\]\.v' of type INT/)
    expect(encoder.encode([1, null]).toString('hex')).toBe('0201')
  })
})
