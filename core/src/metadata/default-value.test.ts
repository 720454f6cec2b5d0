import { describe, expect, it } from 'vitest'
import { Decimal, Timestamp } from '../row/value.js'
import { expectFlussError } from '../testing/expect-error.js'
import { DataTypes } from '../types/data-type.js'
import { parseDefaultValue } from './default-value.js'

describe('parseDefaultValue', () => {
  it('reads the text form of each flat type', () => {
    expect(parseDefaultValue(DataTypes.BOOLEAN(), 'TRUE', 'c')).toBe(true)
    expect(parseDefaultValue(DataTypes.INT(), '-12', 'c')).toBe(-12)
    expect(parseDefaultValue(DataTypes.BIGINT(), '9007199254740993', 'c')).toBe(9007199254740993n)
    expect(parseDefaultValue(DataTypes.DOUBLE(), '1.5e3', 'c')).toBe(1500)
    expect(parseDefaultValue(DataTypes.DECIMAL(5, 2), '12.3', 'c')).toEqual(new Decimal(1230n, 2))
    expect(parseDefaultValue(DataTypes.CHAR(3), 'abc', 'c')).toBe('abc')
    expect(parseDefaultValue(DataTypes.BYTES(), 'AQI=', 'c')).toEqual(new Uint8Array([1, 2]))
    expect(parseDefaultValue(DataTypes.DATE(), '1970-01-03', 'c')).toBe(2)
    expect(parseDefaultValue(DataTypes.TIME(3), '00:00:01.5', 'c')).toBe(1500)
    expect(parseDefaultValue(DataTypes.TIMESTAMP(9), '1970-01-01T00:00:00.001000002', 'c')).toEqual(
      new Timestamp(1, 2),
    )
  })

  it('refuses text that does not fit the type, naming the column', () => {
    const bad: [Parameters<typeof parseDefaultValue>[0], string, string][] = [
      [DataTypes.INT(), '1.5', 'expected an integer'],
      [DataTypes.TINYINT(), '300', 'TINYINT'],
      [DataTypes.DECIMAL(3, 1), '123.4', 'DECIMAL'],
      [DataTypes.CHAR(2), 'abc', 'CHAR'],
      [DataTypes.DATE(), '2024-02-30', 'YYYY-MM-DD'],
      [DataTypes.DOUBLE(), 'NaN', 'finite number'],
      [DataTypes.ARRAY(DataTypes.INT()), '[]', 'nested columns take no default'],
    ]
    for (const [type, text, why] of bad) {
      expectFlussError(() => parseDefaultValue(type, text, 'col'), 'INVALID_ALTER_TABLE_EXCEPTION', why)
      expectFlussError(
        () => parseDefaultValue(type, text, 'col'),
        'INVALID_ALTER_TABLE_EXCEPTION',
        "column 'col'",
      )
    }
  })
})
