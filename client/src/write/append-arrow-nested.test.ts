import { ArrowBatchWriter, writeArrowStream } from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { type Row, Timestamp } from '@sluice/core/row'
import { NESTED_ROWS, NESTED_TYPES } from '@sluice/core/testing'
import { DataTypes, notNull, type RowType } from '@sluice/core/types'
import {
  Field as ArrowJsField,
  Table as ArrowTable,
  Float32,
  Int32,
  List,
  Map_,
  Struct,
  TimestampMillisecond,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow'
import { afterEach, describe, expect, it } from 'vitest'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import { encodedArrowBatch } from './arrow-batch-input.js'

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const nestedSchema = NESTED_TYPES.fields
  .reduce((b, f) => b.column(f.name, f.type), Schema.newBuilder())
  .build()

function message(rowType: RowType, rows: readonly Row[]): Uint8Array {
  const writer = new ArrowBatchWriter(rowType)
  for (const r of rows) writer.addRow(r)
  return writer.finish()
}

async function setup(schema: Schema) {
  const { cluster, connection } = await startClient(cleanups)
  const path = { databaseName: 'fluss', tableName: 'nested_arrow_in' }
  const descriptor = TableDescriptor.builder().schema(schema).distributedBy(1).build()
  const { table, tableId } = await createTable(connection, path, descriptor)
  const stored = () => cluster.state.log(tableId, 0).rows(schema.rowType)
  return { table, stored }
}

/** `samples ARRAY<ROW<values ARRAY<FLOAT>, ts TIMESTAMP_LTZ(3)>>` and `tags MAP<STRING, ARRAY<CHAR(2)>>`. */
const small = Schema.newBuilder()
  .column('id', notNull(DataTypes.INT()))
  .column(
    'samples',
    DataTypes.ARRAY(
      DataTypes.ROW([
        { name: 'values', type: DataTypes.ARRAY(DataTypes.FLOAT()), fieldId: 0 },
        { name: 'ts', type: DataTypes.TIMESTAMP_LTZ(3), fieldId: 1 },
      ]),
    ),
  )
  .column('tags', DataTypes.MAP(DataTypes.STRING(), DataTypes.ARRAY(DataTypes.CHAR(2))))
  .build()

const sampleType = (tsZone: string | null, valuesName = 'values') =>
  new Struct([
    new ArrowJsField(valuesName, new List(new ArrowJsField('item', new Float32(), true)), true),
    new ArrowJsField('ts', new TimestampMillisecond(tsZone as never), true),
  ])
const tagsType = (elements: Utf8 | Int32 = new Utf8()) =>
  new Map_(
    new ArrowJsField(
      'entries',
      new Struct([
        new ArrowJsField('key', new Utf8(), false),
        new ArrowJsField('value', new List(new ArrowJsField('item', elements, true)), true),
      ]),
    ) as never,
  )

/** An apache-arrow stream of `small`'s columns (types overridable to make bad streams). */
function apacheStream(
  tags: unknown[] = [new Map([['k', ['ab', null]]]), null],
  sample = sampleType(null),
  tagType: Map_ = tagsType(),
): Uint8Array {
  const valuesName = sample.children[0].name
  const table = new ArrowTable({
    id: vectorFromArray([1, 2], new Int32()),
    samples: vectorFromArray(
      [[{ [valuesName]: [1.5, null], ts: 1_700_000_000_123 }, null], null],
      new List(new ArrowJsField('item', sample, true)),
    ),
    tags: vectorFromArray(tags, tagType),
  } as never)
  return tableToIPC(table, 'stream')
}

describe('AppendWriter Arrow appends with nested columns', () => {
  it('sends RecordBatch messages of ARRAY, MAP and ROW columns as they are', async () => {
    const { table, stored } = await setup(nestedSchema)
    const writer = table.newAppend().createWriter()
    await writer.appendArrowBatch(message(nestedSchema.rowType, NESTED_ROWS.slice(0, 2)))
    await writer.appendArrowStream(
      writeArrowStream(nestedSchema.rowType, [message(nestedSchema.rowType, NESTED_ROWS.slice(2))]),
    )
    await writer.flush()
    expect(stored()).toEqual(NESTED_ROWS)
    // Our own encoder's messages are taken on their header alone: field nodes of every child counted.
    expect(
      encodedArrowBatch(message(nestedSchema.rowType, NESTED_ROWS), nestedSchema.rowType).recordCount,
    ).toBe(4)
    const flat = DataTypes.ROW(nestedSchema.rowType.fields.map(f => ({ ...f, type: DataTypes.INT() })))
    expect(() => encodedArrowBatch(message(flat, [flat.fields.map(() => 1)]), nestedSchema.rowType)).toThrow(
      /9 field nodes.*9 columns \(\d+ field nodes\)/,
    )
  })

  it('takes a stream written by apache-arrow: `item` elements, a time-zoned TIMESTAMP_LTZ child', async () => {
    const { table, stored } = await setup(small)
    const writer = table.newAppend().createWriter()
    await writer.appendArrowStream(apacheStream())
    await writer.appendArrowStream(apacheStream(undefined, sampleType('UTC')))
    await writer.flush()
    const row1: Row = [
      1,
      [[[1.5, null], new Timestamp(1_700_000_000_123)], null],
      new Map([['k', ['ab', null]]]),
    ]
    expect(stored()).toEqual([row1, [2, null, null], row1, [2, null, null]])
  })

  it('refuses streams whose nested children do not fit, naming the child, and writes nothing', async () => {
    const { table, stored } = await setup(small)
    const writer = table.newAppend().createWriter()
    const cases: [string, () => Uint8Array, RegExp][] = [
      [
        'an element of another type',
        () => apacheStream([new Map([['k', [1]]]), null], undefined, tagsType(new Int32())),
        /Arrow field 'tags\.entries\.value\.item' has Arrow type Int\(32, true\), column 'tags'/,
      ],
      [
        'a renamed ROW field',
        () => apacheStream(undefined, sampleType(null, 'vals')),
        /Arrow field 'samples\.item' has Arrow type Struct \(field 0 is 'vals', expected 'values'\)/,
      ],
      [
        'a CHAR(2) element that is too long',
        () => apacheStream([new Map([['k', ['abc']]]), null]),
        /Row 0 of the Arrow batch: .*tags\["k"\]\[0\]/,
      ],
    ]
    for (const [what, stream, error] of cases) {
      await expect(writer.appendArrowStream(stream()), what).rejects.toMatchObject({
        errorName: 'INVALID_REQUEST',
        message: expect.stringMatching(error),
      })
    }
    await writer.flush()
    expect(stored()).toEqual([])
  })
})
