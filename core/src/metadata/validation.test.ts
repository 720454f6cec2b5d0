import { describe, expect, it } from 'vitest'
import type { ErrorName } from '../errors/index.js'
import { expectFlussError } from '../testing/expect-error.js'
import { type DataType, DataTypes } from '../types/data-type.js'
import { type AggFunction, AggFunctions, aggFunction } from './agg-function.js'
import { Schema } from './schema.js'
import { TableDescriptor, type TableDescriptorBuilder } from './table-descriptor.js'
import { validateTableDescriptor } from './validation.js'

const CTX = { maxBucketNum: 16 }

/** A PK table (id INT, v STRING, dt STRING) with a set bucket count and replication factor. */
function pkTable(extra: (b: TableDescriptorBuilder) => TableDescriptorBuilder = b => b): TableDescriptor {
  const schema = Schema.newBuilder()
    .column('id', DataTypes.INT())
    .column('v', DataTypes.STRING())
    .column('dt', DataTypes.STRING())
    .primaryKey('id')
    .build()
  return extra(
    TableDescriptor.builder().schema(schema).distributedBy(2).property('table.replication.factor', '1'),
  ).build()
}

function logTable(extra: (b: TableDescriptorBuilder) => TableDescriptorBuilder = b => b): TableDescriptor {
  const schema = Schema.newBuilder().column('id', DataTypes.INT()).column('dt', DataTypes.STRING()).build()
  return extra(
    TableDescriptor.builder().schema(schema).distributedBy(2).property('table.replication.factor', '1'),
  ).build()
}

function tableWith(
  columns: [string, DataType, AggFunction?][],
  primaryKey: string[],
  props: Record<string, string> = {},
) {
  const b = Schema.newBuilder()
  for (const [name, type, agg] of columns) b.column(name, type, agg)
  if (primaryKey.length > 0) b.primaryKey(primaryKey)
  return TableDescriptor.builder()
    .schema(b.build())
    .distributedBy(1)
    .property('table.replication.factor', '1')
    .properties(props)
    .build()
}

const rejects = (d: () => TableDescriptor, code: ErrorName, text: string, ctx = CTX): void => {
  expectFlussError(() => validateTableDescriptor(d(), ctx), code, text)
}

describe('validateTableDescriptor accepts', () => {
  it.each([
    ['a log table', () => logTable()],
    ['a primary-key table', () => pkTable()],
    [
      'a versioned table on TIMESTAMP_LTZ',
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['ts', DataTypes.TIMESTAMP_LTZ(3)],
          ],
          ['k'],
          { 'table.merge-engine': 'versioned', 'table.merge-engine.versioned.ver-column': 'ts' },
        ),
    ],
    [
      'an aggregation table with ALLOW deletes',
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['n', DataTypes.BIGINT(), AggFunctions.SUM()],
          ],
          ['k'],
          { 'table.merge-engine': 'aggregation', 'table.delete.behavior': 'allow' },
        ),
    ],
    [
      'a first_row table with DISABLE deletes',
      () =>
        pkTable(b =>
          b.property('table.merge-engine', 'first_row').property('table.delete.behavior', 'disable'),
        ),
    ],
    [
      'an auto-partitioned DATE key by DAY',
      () =>
        tableWith(
          [
            ['id', DataTypes.INT()],
            ['d', DataTypes.DATE()],
          ],
          [],
          { 'table.auto-partition.enabled': 'true' },
        ).with({ partitionKeys: ['d'] }),
    ],
    ['a log table with INDEXED log format', () => logTable(b => b.property('table.log.format', 'INDEXED'))],
  ])('%s', (_name, d) => {
    expect(() => validateTableDescriptor(d(), CTX)).not.toThrow()
  })
})

describe('validateTableDescriptor rejects (one test per rule)', () => {
  it('an unknown table.* property', () =>
    rejects(
      () => logTable(b => b.property('table.nope', 'x')),
      'INVALID_CONFIG_EXCEPTION',
      "'table.nope' is not a recognized Fluss table property",
    ))

  it('a non-table property in properties', () =>
    rejects(
      () => logTable(b => b.property('owner', 'x')),
      'INVALID_CONFIG_EXCEPTION',
      "'owner' is not a Fluss table property. Please use '.customProperty(..)'",
    ))

  it('a malformed option value', () =>
    rejects(
      () => logTable(b => b.property('table.log.format', 'PARQUET')),
      'INVALID_CONFIG_EXCEPTION',
      "'table.log.format'",
    ))

  it('a table without distribution', () =>
    rejects(
      () => logTable().with({ distribution: undefined }),
      'INVALID_TABLE_EXCEPTION',
      'Table distribution is required.',
    ))

  it('a table without bucket count', () =>
    rejects(
      () => pkTable(b => b.distributedBy(undefined)),
      'INVALID_TABLE_EXCEPTION',
      'Bucket number must be set.',
    ))

  it('a bucket count below 1', () =>
    rejects(
      () => logTable(b => b.distributedBy(0)),
      'INVALID_TABLE_EXCEPTION',
      'Number of buckets must be larger than 0',
    ))

  it('a bucket count above max.bucket.num', () =>
    rejects(
      () => logTable(b => b.distributedBy(17)),
      'BUCKET_MAX_NUM_EXCEPTION',
      'Bucket count 17 exceeds the maximum limit 16.',
    ))

  it('a nested bucket key', () =>
    rejects(
      () =>
        tableWith(
          [
            ['a', DataTypes.ARRAY(DataTypes.INT())],
            ['b', DataTypes.INT()],
          ],
          [],
        ).with({ distribution: { bucketCount: 1, bucketKeys: ['a'] } }),
      'INVALID_TABLE_EXCEPTION',
      "Bucket key column 'a' has unsupported data type ARRAY<INT>. Currently, bucket key column does not support types: [ARRAY, MAP, ROW].",
    ))

  it('a nested primary key', () =>
    rejects(
      () =>
        tableWith(
          [
            ['m', DataTypes.MAP(DataTypes.INT(), DataTypes.INT())],
            ['b', DataTypes.INT()],
          ],
          ['m', 'b'],
        ).with({
          distribution: { bucketCount: 1, bucketKeys: ['b'] },
        }),
      'INVALID_TABLE_EXCEPTION',
      "Primary key column 'm' has unsupported data type MAP<INT NOT NULL, INT> NOT NULL. Currently, primary key column does not support types: [ARRAY, MAP, ROW].",
    ))

  it('a missing replication factor', () =>
    rejects(
      () => logTable().withProperties({}),
      'INVALID_CONFIG_EXCEPTION',
      "Missing required table property 'table.replication.factor'.",
    ))

  it('a replication factor of 0', () =>
    rejects(
      () => logTable(b => b.property('table.replication.factor', '0')),
      'INVALID_CONFIG_EXCEPTION',
      'table.replication.factor',
    ))

  it('a replication factor above the live tablet servers (non-partitioned tables)', () => {
    const ctx = { ...CTX, aliveTabletServers: 2 }
    rejects(
      () => logTable(b => b.property('table.replication.factor', '3')),
      'INVALID_REPLICATION_FACTOR',
      'Replication factor: 3 larger than available tablet servers: 2.',
      ctx,
    )
    const partitioned = logTable(b => b.property('table.replication.factor', '3').partitionedBy('dt'))
    expect(() => validateTableDescriptor(partitioned, ctx)).not.toThrow()
  })

  it('a primary-key table with INDEXED log and COMPACTED kv', () =>
    rejects(
      () => pkTable(b => b.property('table.log.format', 'INDEXED')),
      'INVALID_CONFIG_EXCEPTION',
      'Currently, Primary Key Table supports ARROW or COMPACTED log format when kv format is COMPACTED.',
    ))

  it('a primary-key table with INDEXED kv values', () =>
    rejects(
      () => pkTable(b => b.property('table.kv.format', 'INDEXED').property('table.log.format', 'INDEXED')),
      'INVALID_CONFIG_EXCEPTION',
      "The kv format 'INDEXED' is not supported by Sluice; primary-key tables use 'COMPACTED'.",
    ))

  it('a ZSTD level outside 1..22', () =>
    rejects(
      () => logTable(b => b.property('table.log.arrow.compression.zstd.level', '23')),
      'INVALID_CONFIG_EXCEPTION',
      'table.log.arrow.compression.zstd.level',
    ))

  it('a tiered local segment count below 1', () =>
    rejects(
      () => logTable(b => b.property('table.log.tiered.local-segments', '0')),
      'INVALID_CONFIG_EXCEPTION',
      'table.log.tiered.local-segments',
    ))

  it('a merge engine on a log table', () =>
    rejects(
      () => logTable(b => b.property('table.merge-engine', 'first_row')),
      'INVALID_CONFIG_EXCEPTION',
      'Merge engine is only supported in primary key table.',
    ))

  it('a versioned table without version column', () =>
    rejects(
      () => pkTable(b => b.property('table.merge-engine', 'versioned')),
      'INVALID_CONFIG_EXCEPTION',
      "'table.merge-engine.versioned.ver-column' must be set for versioned merge engine.",
    ))

  it('a versioned table whose version column does not exist', () =>
    rejects(
      () =>
        pkTable(b =>
          b
            .property('table.merge-engine', 'versioned')
            .property('table.merge-engine.versioned.ver-column', 'ts'),
        ),
      'INVALID_CONFIG_EXCEPTION',
      "The version column 'ts' for versioned merge engine doesn't exist in schema.",
    ))

  it('a versioned table whose version column is not INT/BIGINT/TIMESTAMP/TIMESTAMP_LTZ', () =>
    rejects(
      () =>
        pkTable(b =>
          b
            .property('table.merge-engine', 'versioned')
            .property('table.merge-engine.versioned.ver-column', 'v'),
        ),
      'INVALID_CONFIG_EXCEPTION',
      "The version column 'v' for versioned merge engine must be one type of [INT, BIGINT, TIMESTAMP, TIMESTAMP_LTZ], but got STRING.",
    ))

  it('an aggregation table with WAL changelog image', () =>
    rejects(
      () =>
        pkTable(b =>
          b.property('table.merge-engine', 'aggregation').property('table.changelog.image', 'wal'),
        ),
      'INVALID_CONFIG_EXCEPTION',
      "Table with 'AGGREGATION' merge engine does not support 'WAL' changelog image mode.",
    ))

  it('an aggregation function on a column of the wrong type', () =>
    rejects(
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['s', DataTypes.STRING(), AggFunctions.SUM()],
          ],
          ['k'],
          { 'table.merge-engine': 'aggregation' },
        ),
      'INVALID_CONFIG_EXCEPTION',
      "Invalid aggregation function for column 's': Data type for sum column must be part of [TINYINT, SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, DECIMAL] but was 'STRING'.",
    ))

  it('an aggregation function with an unsupported parameter', () =>
    rejects(
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['n', DataTypes.INT(), aggFunction('sum', { delimiter: ',' })],
          ],
          ['k'],
          { 'table.merge-engine': 'aggregation' },
        ),
      'INVALID_CONFIG_EXCEPTION',
      "Parameter 'delimiter' is not supported for aggregation function 'sum'. Supported parameters: none",
    ))

  it('a listagg with an empty delimiter', () =>
    rejects(
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['s', DataTypes.STRING(), AggFunctions.LISTAGG('')],
          ],
          ['k'],
          { 'table.merge-engine': 'aggregation' },
        ),
      'INVALID_CONFIG_EXCEPTION',
      "Parameter 'delimiter' for aggregation function 'listagg' must be a non-empty string",
    ))

  it('an aggregation function on a table without the aggregation merge engine', () =>
    rejects(
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['n', DataTypes.INT(), AggFunctions.MAX()],
          ],
          ['k'],
        ),
      'INVALID_CONFIG_EXCEPTION',
      "Aggregation function is only supported for aggregation merge engine table, but column 'n' has aggregation function 'max'.",
    ))

  it('a delete behaviour on a log table', () =>
    rejects(
      () => logTable(b => b.property('table.delete.behavior', 'ignore')),
      'INVALID_CONFIG_EXCEPTION',
      "The 'table.delete.behavior' configuration is only supported for primary key tables.",
    ))

  it.each(['first_row', 'versioned'])('ALLOW deletes with the %s merge engine', engine =>
    rejects(
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['ver', DataTypes.BIGINT()],
          ],
          ['k'],
          {
            'table.merge-engine': engine,
            'table.merge-engine.versioned.ver-column': 'ver',
            'table.delete.behavior': 'ALLOW',
          },
        ),
      'INVALID_CONFIG_EXCEPTION',
      `Table with '${engine.toUpperCase()}' merge engine does not support delete operations. The 'table.delete.behavior' config must be set to 'ignore' or 'disable', but got 'allow'.`,
    ),
  )

  it('auto-partitioning on a non-partitioned table', () =>
    rejects(
      () => logTable(b => b.property('table.auto-partition.enabled', 'true')),
      'INVALID_CONFIG_EXCEPTION',
      "Currently, auto partition is only supported for partitioned table, please set table property 'table.auto-partition.enabled' to false.",
    ))

  it('a partition key of an unsupported type', () =>
    rejects(
      () =>
        tableWith(
          [
            ['id', DataTypes.INT()],
            ['p', DataTypes.DECIMAL(10, 2)],
          ],
          [],
        ).with({ partitionKeys: ['p'] }),
      'INVALID_TABLE_EXCEPTION',
      "Currently, partitioned table supported partition key type are [CHAR, STRING, BOOLEAN, BINARY, BYTES, TINYINT, SMALLINT, INTEGER, DATE, TIME_WITHOUT_TIME_ZONE, BIGINT, FLOAT, DOUBLE, TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE], but got partition key 'p' with data type DECIMAL(10, 2).",
    ))

  const multiKey = (props: Record<string, string>) =>
    tableWith(
      [
        ['id', DataTypes.INT()],
        ['dt', DataTypes.STRING()],
        ['region', DataTypes.STRING()],
      ],
      [],
      {
        'table.auto-partition.enabled': 'true',
        ...props,
      },
    ).with({ partitionKeys: ['dt', 'region'] })

  it('multi-key auto-partitioning without an auto-partition key', () =>
    rejects(
      () => multiKey({ 'table.auto-partition.num-precreate': '0' }),
      'INVALID_TABLE_EXCEPTION',
      "Currently, auto partitioned table must set one auto partition key when it has multiple partition keys. Please set table property 'table.auto-partition.key'.",
    ))

  it('an auto-partition key that is not a partition key', () =>
    rejects(
      () => multiKey({ 'table.auto-partition.key': 'id', 'table.auto-partition.num-precreate': '0' }),
      'INVALID_TABLE_EXCEPTION',
      "The specified key for auto partitioned table is not a partition key. Your key 'id' is not in key list [dt, region]",
    ))

  it('pre-creation with several partition keys', () =>
    rejects(
      () => multiKey({ 'table.auto-partition.key': 'dt' }),
      'INVALID_TABLE_EXCEPTION',
      'For a partitioned table with multiple partition keys, auto pre-create is unsupported and this value must be set to 0, but is 2',
    ))

  it('a DATE auto-partition key with a unit other than DAY', () =>
    rejects(
      () =>
        tableWith(
          [
            ['id', DataTypes.INT()],
            ['d', DataTypes.DATE()],
          ],
          [],
          {
            'table.auto-partition.enabled': 'true',
            'table.auto-partition.time-unit': 'MONTH',
          },
        ).with({ partitionKeys: ['d'] }),
      'INVALID_TABLE_EXCEPTION',
      "Table property 'table.auto-partition.time-unit' must be 'DAY' when auto partition key 'd' has DATE type.",
    ))

  it('reserved system column names', () =>
    rejects(
      () =>
        tableWith(
          [
            ['__offset', DataTypes.BIGINT()],
            ['_change_type', DataTypes.STRING()],
          ],
          [],
        ),
      'INVALID_TABLE_EXCEPTION',
      '__offset, _change_type cannot be used as column names, because they are reserved system columns in Fluss. Please use other names for these columns. The reserved system columns are: __offset, __timestamp, __bucket, _change_type, _log_offset, _commit_timestamp',
    ))

  it('a nested partition key', () =>
    rejects(
      () =>
        tableWith(
          [
            ['id', DataTypes.INT()],
            ['p', DataTypes.ROW([{ name: 'day', type: DataTypes.STRING(), fieldId: 2 }])],
          ],
          [],
        ).with({ partitionKeys: ['p'] }),
      'INVALID_TABLE_EXCEPTION',
      "Currently, partitioned table supported partition key type are [CHAR, STRING, BOOLEAN, BINARY, BYTES, TINYINT, SMALLINT, INTEGER, DATE, TIME_WITHOUT_TIME_ZONE, BIGINT, FLOAT, DOUBLE, TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE], but got partition key 'p' with data type ROW<day STRING>.",
    ))

  it('a nested version column of a versioned table', () =>
    rejects(
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['ver', DataTypes.ARRAY(DataTypes.BIGINT())],
          ],
          ['k'],
          { 'table.merge-engine': 'versioned', 'table.merge-engine.versioned.ver-column': 'ver' },
        ),
      'INVALID_CONFIG_EXCEPTION',
      "The version column 'ver' for versioned merge engine must be one type of [INT, BIGINT, TIMESTAMP, TIMESTAMP_LTZ], but got ARRAY<BIGINT>.",
    ))

  it('an aggregation other than last_value/first_value on a nested column', () =>
    rejects(
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['tags', DataTypes.ARRAY(DataTypes.STRING()), AggFunctions.LISTAGG()],
          ],
          ['k'],
          { 'table.merge-engine': 'aggregation' },
        ),
      'INVALID_CONFIG_EXCEPTION',
      "Invalid aggregation function for column 'tags': Data type for listagg column must be part of [STRING, CHAR] but was 'ARRAY<STRING>'.",
    ))
})

describe('validateTableDescriptor with nested columns', () => {
  const ISSUE_EXAMPLE = DataTypes.ARRAY(
    DataTypes.MAP(
      DataTypes.STRING(),
      DataTypes.ROW([
        { name: 'values', type: DataTypes.ARRAY(DataTypes.FLOAT()), fieldId: 3 },
        { name: 'ts', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 4 },
      ]),
    ),
  )

  it.each([
    [
      'a log table with the deepest example of Fluss 0.9',
      () =>
        tableWith(
          [
            ['id', DataTypes.INT()],
            ['m', ISSUE_EXAMPLE],
          ],
          [],
        ),
    ],
    [
      'a partitioned primary-key table with nested value columns',
      () =>
        tableWith(
          [
            ['id', DataTypes.INT()],
            ['dt', DataTypes.STRING()],
            ['tags', DataTypes.ARRAY(DataTypes.STRING())],
            [
              'attrs',
              DataTypes.MAP(
                DataTypes.STRING(),
                DataTypes.ARRAY(DataTypes.ROW([{ name: 'a', type: DataTypes.INT(), fieldId: 5 }])),
              ),
            ],
          ],
          ['id', 'dt'],
        ).with({ partitionKeys: ['dt'], distribution: { bucketCount: 1, bucketKeys: ['id'] } }),
    ],
    [
      'an aggregation table keeping the first and last nested values',
      () =>
        tableWith(
          [
            ['k', DataTypes.INT()],
            ['first', ISSUE_EXAMPLE, AggFunctions.FIRST_VALUE()],
            ['last', DataTypes.MAP(DataTypes.INT(), DataTypes.INT()), AggFunctions.LAST_VALUE_IGNORE_NULLS()],
          ],
          ['k'],
          { 'table.merge-engine': 'aggregation' },
        ),
    ],
  ])('%s', (_name, d) => {
    expect(() => validateTableDescriptor(d(), CTX)).not.toThrow()
  })
})
