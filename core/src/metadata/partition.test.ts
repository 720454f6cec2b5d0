import { describe, expect, it } from 'vitest'
import { Timestamp } from '../row/value.js'
import { expectFlussError } from '../testing/expect-error.js'
import { DataTypes } from '../types/data-type.js'
import {
  partitionName,
  partitionQualifiedName,
  partitionSpec,
  partitionSpecContains,
  partitionSpecFromName,
  partitionSpecFromQualifiedName,
  resolvePartitionSpec,
  toPartitionSpec,
  validatePartitionSpec,
  validatePartitionValues,
} from './partition.js'
import { javaFloatingToString, partitionGetter, partitionValueToString } from './partition-value.js'
import { tablePath } from './table-path.js'

describe('partition value rendering (Fluss PartitionUtilsTest vectors)', () => {
  it.each([
    ['STRING', 'Fluss', DataTypes.STRING(), 'Fluss'],
    ['CHAR', 'F', DataTypes.CHAR(1), 'F'],
    ['BOOLEAN', true, DataTypes.BOOLEAN(), 'true'],
    ['BYTES', new Uint8Array([0x10, 0x20, 0x30, 0x40, 0x50, 0xff]), DataTypes.BYTES(), '1020304050ff'],
    ['BINARY', new Uint8Array([0x10, 0x20, 0x30, 0x40, 0x50, 0xff]), DataTypes.BINARY(6), '1020304050ff'],
    ['TINYINT', 100, DataTypes.TINYINT(), '100'],
    ['SMALLINT', -32760, DataTypes.SMALLINT(), '-32760'],
    ['INT', 299000, DataTypes.INT(), '299000'],
    ['BIGINT', 1748662955428n, DataTypes.BIGINT(), '1748662955428'],
    ['DATE', 20235, DataTypes.DATE(), '2025-05-27'],
    ['TIME', 5402199, DataTypes.TIME(3), '01-30-02_199'],
    ['FLOAT', Math.fround(5.73), DataTypes.FLOAT(), '5_73'],
    ['DOUBLE', 5.73, DataTypes.DOUBLE(), '5_73'],
    [
      'TIMESTAMP',
      new Timestamp(1748662955428, 99988),
      DataTypes.TIMESTAMP(9),
      '2025-05-31-03-42-35_428099988',
    ],
    [
      'TIMESTAMP zero nanos',
      new Timestamp(1748662955428, 0),
      DataTypes.TIMESTAMP(9),
      '2025-05-31-03-42-35_428',
    ],
    [
      'TIMESTAMP zero millis',
      new Timestamp(1748662955000, 99988),
      DataTypes.TIMESTAMP(9),
      '2025-05-31-03-42-35_000099988',
    ],
    [
      'TIMESTAMP whole second',
      new Timestamp(1748662955000, 0),
      DataTypes.TIMESTAMP(9),
      '2025-05-31-03-42-35_',
    ],
    [
      'TIMESTAMP negative',
      new Timestamp(-1748662955428, 99988),
      DataTypes.TIMESTAMP(9),
      '1914-08-03-20-17-24_572099988',
    ],
    [
      'TIMESTAMP_LTZ',
      new Timestamp(1748662955428, 99988),
      DataTypes.TIMESTAMP_LTZ(9),
      '2025-05-31-03-42-35_428099988',
    ],
    ['DATE before epoch', -1, DataTypes.DATE(), '1969-12-31'],
    ['DOUBLE NaN', Number.NaN, DataTypes.DOUBLE(), 'NaN'],
    ['DOUBLE -Inf', Number.NEGATIVE_INFINITY, DataTypes.DOUBLE(), '-Inf'],
    ['DOUBLE large', 1e10, DataTypes.DOUBLE(), '1_0E10'],
    ['DOUBLE small', 1e-4, DataTypes.DOUBLE(), '1_0E-4'],
    ['DOUBLE negative', -0.5, DataTypes.DOUBLE(), '-0_5'],
    ['FLOAT third', Math.fround(1 / 3), DataTypes.FLOAT(), '0_33333334'],
  ])('%s', (_name, value, type, expected) => {
    expect(partitionValueToString(value, type)).toBe(expected)
  })

  it('formats floating numbers like Java toString', () => {
    expect(javaFloatingToString(100, false)).toBe('100.0')
    expect(javaFloatingToString(1234567, false)).toBe('1234567.0')
    expect(javaFloatingToString(12345678, false)).toBe('1.2345678E7')
    expect(javaFloatingToString(0.001, false)).toBe('0.001')
    expect(javaFloatingToString(0.1, true)).toBe('0.1')
    expect(javaFloatingToString(Math.fround(1e10), true)).toBe('1.0E10')
    expect(javaFloatingToString(-0, false)).toBe('-0.0')
    expect(javaFloatingToString(Number.POSITIVE_INFINITY, false)).toBe('Infinity')
  })

  it('rejects null, wrong value kinds and unsupported types', () => {
    expectFlussError(
      () => partitionValueToString(null, DataTypes.INT()),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      "shouldn't be null",
    )
    expectFlussError(
      () => partitionValueToString('1', DataTypes.INT()),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      'not a valid INT',
    )
    expectFlussError(
      () => partitionValueToString(1, DataTypes.DECIMAL(5, 2)),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      'Unsupported partition key type DECIMAL(5, 2)',
    )
  })

  it('builds a partition name from a row', () => {
    const rowType = DataTypes.ROW([
      { name: 'id', type: DataTypes.INT(), fieldId: 0 },
      { name: 'dt', type: DataTypes.STRING(), fieldId: 1 },
      { name: 'nation', type: DataTypes.STRING(), fieldId: 2 },
    ])
    const getPartition = partitionGetter(rowType, ['dt', 'nation'])
    expect(getPartition([1, '20240910', 'A'])).toBe('20240910$A')
    expectFlussError(() => getPartition([1, null, 'A']), 'PARTITION_SPEC_INVALID_EXCEPTION')
    expectFlussError(
      () => partitionGetter(rowType, ['nope']),
      'INVALID_TABLE_EXCEPTION',
      'The partition column nope is not in the row',
    )
  })
})

describe('partition specs', () => {
  const keys = ['dt', 'nation']
  const path = tablePath('test_db_1', 'test_non_pk_table_1')

  it('resolves, names and parses specs', () => {
    const resolved = resolvePartitionSpec(keys, partitionSpec({ nation: 'A', dt: '20240910' }))
    expect(partitionName(resolved)).toBe('20240910$A')
    expect(partitionQualifiedName(resolved)).toBe('dt=20240910/nation=A')
    expect(partitionSpecFromName(keys, '20240910$A')).toEqual(resolved)
    expect(partitionSpecFromQualifiedName('dt=20240910/nation=A')).toEqual(resolved)
    expect([...toPartitionSpec(resolved)]).toEqual([
      ['dt', '20240910'],
      ['nation', 'A'],
    ])
    expect(partitionSpecContains(resolved, partitionSpecFromQualifiedName('nation=A'))).toBe(true)
    expect(partitionSpecContains(resolved, partitionSpecFromQualifiedName('nation=B'))).toBe(false)
  })

  it('rejects malformed names and specs', () => {
    expectFlussError(
      () => partitionSpecFromName(keys, '20240910'),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      'has 1 values',
    )
    expectFlussError(
      () => partitionSpecFromQualifiedName('dt'),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      'Expected key=value',
    )
    expectFlussError(
      () =>
        partitionSpecContains(
          resolvePartitionSpec(['dt'], partitionSpec({ dt: 'x' })),
          partitionSpecFromQualifiedName('z=1'),
        ),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      "table don't contains this partitionKey: z",
    )
  })

  it('validates partition values like Fluss', () => {
    expectFlussError(
      () => validatePartitionValues(['$1', '2'], true),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      "The partition value $1 is invalid: '$1' contains one or more characters other than ASCII alphanumerics, '_' and '-'",
    )
    expectFlussError(
      () => validatePartitionValues(['?1', '2'], false),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      "The partition value ?1 is invalid: '?1' contains one or more characters",
    )
    expectFlussError(
      () => validatePartitionValues(['__p1', '2'], true),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      "The partition value __p1 is invalid: '__' is not allowed as prefix, since it is reserved for internal databases/internal tables/internal partitions in Fluss server",
    )
    expect(() => validatePartitionValues(['__p1', '2'], false)).not.toThrow()
    expectFlussError(
      () => validatePartitionValues(['x'.repeat(201)], false),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      'max allowed length 200',
    )
  })

  it('validates a spec against the partition keys', () => {
    expectFlussError(
      () => validatePartitionSpec(path, ['b'], new Map(), true),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      'PartitionSpec size is not equal to partition keys size for partitioned table test_db_1.test_non_pk_table_1.',
    )
    expectFlussError(
      () => validatePartitionSpec(path, ['b'], partitionSpec({ c: '1' }), true),
      'PARTITION_SPEC_INVALID_EXCEPTION',
      "does not contain partition key 'b' for partitioned table test_db_1.test_non_pk_table_1.",
    )
    expect(
      partitionName(validatePartitionSpec(path, keys, partitionSpec({ nation: 'A', dt: '1' }), true)),
    ).toBe('1$A')
  })
})
