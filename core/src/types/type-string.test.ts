import { describe, expect, it } from 'vitest'
import { DataTypes, notNull } from './data-type.js'
import { parseTypeString } from './type-string.js'

describe('parseTypeString', () => {
  it('parses every primitive and parameterised type', () => {
    expect(parseTypeString('INT')).toEqual(DataTypes.INT())
    expect(parseTypeString('integer not null')).toEqual(notNull(DataTypes.INT()))
    expect(parseTypeString('DECIMAL(10,2) NOT NULL')).toEqual(notNull(DataTypes.DECIMAL(10, 2)))
    expect(parseTypeString('DECIMAL(10, 2)')).toEqual(DataTypes.DECIMAL(10, 2))
    expect(parseTypeString('CHAR(5)')).toEqual(DataTypes.CHAR(5))
    expect(parseTypeString('BINARY(16)')).toEqual(DataTypes.BINARY(16))
    expect(parseTypeString('TIME(3)')).toEqual(DataTypes.TIME(3))
    expect(parseTypeString('TIMESTAMP')).toEqual(DataTypes.TIMESTAMP(6))
    expect(parseTypeString('TIMESTAMP(3) WITH LOCAL TIME ZONE')).toEqual(DataTypes.TIMESTAMP_LTZ(3))
    expect(parseTypeString('TIMESTAMP_LTZ(9)')).toEqual(DataTypes.TIMESTAMP_LTZ(9))
    for (const t of [
      'BOOLEAN',
      'TINYINT',
      'SMALLINT',
      'BIGINT',
      'FLOAT',
      'DOUBLE',
      'STRING',
      'BYTES',
      'DATE',
    ]) {
      expect(parseTypeString(t).type).toBe(t)
    }
  })

  it('parses nested types', () => {
    expect(parseTypeString('ARRAY<INT NOT NULL>')).toEqual(DataTypes.ARRAY(notNull(DataTypes.INT())))
    expect(parseTypeString('MAP<STRING, BIGINT>')).toEqual(
      DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT()),
    )
    const row = parseTypeString('ROW<id INT, `my name` STRING NOT NULL>')
    expect(row.type).toBe('ROW')
    expect(row.type === 'ROW' && row.fields.map(f => f.name)).toEqual(['id', 'my name'])
  })

  it('rejects unknown names, bad parameters and trailing text with a reason', () => {
    expect(() => parseTypeString('VARCHAR(3)')).toThrow(/unknown type 'VARCHAR'/)
    expect(() => parseTypeString('DECIMAL(50, 2)')).toThrow(/precision/)
    expect(() => parseTypeString('DECIMAL(5, 7)')).toThrow(/scale/)
    expect(() => parseTypeString('INT INT')).toThrow(/unexpected 'INT'/)
    expect(() => parseTypeString('ARRAY<INT')).toThrow(/ends where/)
    expect(() => parseTypeString('INT;')).toThrow(/unexpected ';'/)
    expect(() => parseTypeString(`${'ARRAY<'.repeat(100)}INT${'>'.repeat(100)}`)).toThrow(/nests deeper/)
  })
})
