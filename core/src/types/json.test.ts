import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { type DataType, DataTypes, notNull, nullable, typeEquals } from './data-type.js'
import { dataTypeFromJson, dataTypeToJson, MAX_TYPE_NESTING_DEPTH } from './json.js'

const INT_NN = notNull(DataTypes.INT())
const ROW = DataTypes.ROW([
  { name: 'f0', type: DataTypes.BIGINT(), fieldId: -1 },
  { name: 'f1', type: INT_NN, fieldId: 1 },
  { name: 'f2', type: DataTypes.STRING(), fieldId: 2 },
])

// Types and expected JSON from Fluss's DataTypeJsonSerdeTest (release 0.9.1); each type is checked
// nullable, then NOT NULL.
const GOLDEN: [DataType, string][] = [
  [DataTypes.BOOLEAN(), '{"type":"BOOLEAN"}'],
  [DataTypes.TINYINT(), '{"type":"TINYINT"}'],
  [DataTypes.SMALLINT(), '{"type":"SMALLINT"}'],
  [DataTypes.INT(), '{"type":"INTEGER"}'],
  [DataTypes.BIGINT(), '{"type":"BIGINT"}'],
  [DataTypes.FLOAT(), '{"type":"FLOAT"}'],
  [DataTypes.DOUBLE(), '{"type":"DOUBLE"}'],
  [DataTypes.DECIMAL(10, 0), '{"type":"DECIMAL","precision":10,"scale":0}'],
  [DataTypes.DECIMAL(15, 5), '{"type":"DECIMAL","precision":15,"scale":5}'],
  [DataTypes.CHAR(1), '{"type":"CHAR","length":1}'],
  [DataTypes.CHAR(5), '{"type":"CHAR","length":5}'],
  [DataTypes.STRING(), '{"type":"STRING"}'],
  [DataTypes.BINARY(1), '{"type":"BINARY","length":1}'],
  [DataTypes.BINARY(100), '{"type":"BINARY","length":100}'],
  [DataTypes.BYTES(), '{"type":"BYTES"}'],
  [DataTypes.DATE(), '{"type":"DATE"}'],
  [DataTypes.TIME(), '{"type":"TIME_WITHOUT_TIME_ZONE","precision":0}'],
  [DataTypes.TIME(3), '{"type":"TIME_WITHOUT_TIME_ZONE","precision":3}'],
  [DataTypes.TIMESTAMP(), '{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":6}'],
  [DataTypes.TIMESTAMP(3), '{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":3}'],
  [DataTypes.TIMESTAMP_LTZ(), '{"type":"TIMESTAMP_WITH_LOCAL_TIME_ZONE","precision":6}'],
  [DataTypes.TIMESTAMP_LTZ(3), '{"type":"TIMESTAMP_WITH_LOCAL_TIME_ZONE","precision":3}'],
  [DataTypes.ARRAY(INT_NN), '{"type":"ARRAY","element_type":{"type":"INTEGER","nullable":false}}'],
  [
    DataTypes.MAP(notNull(DataTypes.BIGINT()), INT_NN),
    '{"type":"MAP","key_type":{"type":"BIGINT","nullable":false},"value_type":{"type":"INTEGER","nullable":false}}',
  ],
  [
    ROW,
    '{"type":"ROW","fields":[{"name":"f0","field_type":{"type":"BIGINT"},"field_id":-1},' +
      '{"name":"f1","field_type":{"type":"INTEGER","nullable":false},"field_id":1},' +
      '{"name":"f2","field_type":{"type":"STRING"},"field_id":2}]}',
  ],
]

const notNullJson = (json: string) => json.replace(/^\{"type":"([A-Z_]+)"/, '{"type":"$1","nullable":false')

function expectCode(fn: () => unknown, code: string, text?: string): void {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe(code)
    if (text !== undefined) expect((e as FlussError).message).toContain(text)
    return
  }
  throw new Error('expected a FlussError')
}

describe('data type JSON', () => {
  it.each(GOLDEN)('writes and reads %j like Fluss', (type, json) => {
    for (const [t, expected] of [
      [nullable(type), json],
      [notNull(type), notNullJson(json)],
    ] as const) {
      expect(dataTypeToJson(t)).toBe(expected)
      const back = dataTypeFromJson(expected)
      expect(typeEquals(back, t)).toBe(true)
      expect(dataTypeToJson(back)).toBe(expected)
    }
  })

  it('reads ROW fields without field_id as -1 and keeps descriptions', () => {
    const json =
      '{"type":"ROW","nullable":false,"fields":[{"name":"f0","field_type":{"type":"BIGINT"}},' +
      '{"name":"f1","field_type":{"type":"INTEGER"},"description":"d","field_id":1}]}'
    const t = dataTypeFromJson(Buffer.from(json))
    expect(t).toEqual({
      type: 'ROW',
      nullable: false,
      fields: [
        { name: 'f0', type: DataTypes.BIGINT(), fieldId: -1 },
        { name: 'f1', type: DataTypes.INT(), description: 'd', fieldId: 1 },
      ],
    })
    expect(dataTypeToJson(t)).toContain('"description":"d","field_id":1')
  })

  it('forces MAP keys NOT NULL and accepts an explicit nullable:true', () => {
    const t = dataTypeFromJson(
      '{"type":"MAP","nullable":true,"key_type":{"type":"STRING"},"value_type":{"type":"INTEGER"}}',
    )
    expect(t.type === 'MAP' && t.keyType.nullable).toBe(false)
    expect(t.nullable).toBe(true)
  })

  it.each([
    ['not JSON', '{"type":', 'Failed to parse data type'],
    ['not an object', '[1]', 'must be a JSON object'],
    ['missing type', '{}', "missing required field 'type'"],
    ['type not a string', '{"type":5}', 'type must be a string'],
    ['unknown root', '{"type":"VARIANT"}', "unknown data type root 'VARIANT'"],
    ['missing precision', '{"type":"DECIMAL","scale":2}', "missing required field 'precision'"],
    ['fractional length', '{"type":"CHAR","length":1.5}', 'length must be a 32-bit integer'],
    ['zero length', '{"type":"CHAR","length":0}', 'Character string length must be between 1'],
    [
      'precision too high',
      '{"type":"DECIMAL","precision":39,"scale":0}',
      'Decimal precision must be between 1 and 38',
    ],
    [
      'scale above precision',
      '{"type":"DECIMAL","precision":5,"scale":6}',
      'Decimal scale must be between 0 and the precision 5',
    ],
    [
      'time precision',
      '{"type":"TIME_WITHOUT_TIME_ZONE","precision":10}',
      'Time precision must be between 0 and 9',
    ],
    ['timestamp precision', '{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":-1}', 'Timestamp precision'],
    ['nullable not boolean', '{"type":"INTEGER","nullable":"false"}', 'nullable must be a boolean'],
    ['fields not array', '{"type":"ROW","fields":{}}', 'fields must be a JSON array'],
    [
      'nested field bad',
      '{"type":"ROW","fields":[{"name":"a"}]}',
      "fields[0] is missing required field 'field_type'",
    ],
    [
      'duplicate row fields',
      '{"type":"ROW","fields":[{"name":"a","field_type":{"type":"INTEGER"}},{"name":"a","field_type":{"type":"INTEGER"}}]}',
      'Field names must be unique. Found duplicates: [a]',
    ],
    ['array element bad', '{"type":"ARRAY","element_type":{"type":"NOPE"}}', 'element_type.type'],
  ])('rejects %s with INVALID_TABLE_EXCEPTION', (_name, json, text) => {
    expectCode(() => dataTypeFromJson(json), 'INVALID_TABLE_EXCEPTION', text)
  })

  it('rejects types nested deeper than the limit without exhausting the stack', () => {
    const nest = (n: number) =>
      `${'{"type":"ARRAY","element_type":'.repeat(n)}{"type":"INTEGER"}${'}'.repeat(n)}`
    expect(dataTypeFromJson(nest(MAX_TYPE_NESTING_DEPTH)).type).toBe('ARRAY')
    expectCode(
      () => dataTypeFromJson(nest(MAX_TYPE_NESTING_DEPTH + 1)),
      'INVALID_TABLE_EXCEPTION',
      'nests types deeper than',
    )
    expectCode(() => dataTypeFromJson(nest(50_000)), 'INVALID_TABLE_EXCEPTION')
  })

  it('rejects invalid UTF-8 bytes and honours a caller error name', () => {
    expectCode(
      () => dataTypeFromJson(new Uint8Array([0x7b, 0xff, 0x7d])),
      'INVALID_TABLE_EXCEPTION',
      'Failed to parse',
    )
    expectCode(() => dataTypeFromJson('{}', 'INVALID_REQUEST'), 'INVALID_REQUEST')
  })
})
