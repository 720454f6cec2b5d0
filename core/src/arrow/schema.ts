import { type DataType, DataTypes, type RowField, type RowType, withNullability } from '../types/data-type.js'
import { ARROW_TYPE_IDS, type ArrowTimeUnit, type ArrowType, TIME_UNITS, toFlussType } from './arrow-type.js'
import { type ColumnLayout, columnLayout } from './column-layout.js'
import { corrupt, type FbReader } from './flatbuf-reader.js'
import { type FbField, FbWriter, REF } from './flatbuf-writer.js'
import { PARQUET_FIELD_ID_METADATA_KEY } from './lake-system-columns.js'
import { CONTINUATION, METADATA_V5, MessageHeaderType } from './message.js'

/** A field of an Arrow schema, with the Fluss type it maps to (null when there is none). */
export interface ArrowField {
  readonly name: string
  readonly nullable: boolean
  readonly arrowType: ArrowType
  readonly type: DataType | null
  readonly metadata: Readonly<Record<string, string>>
  /** Child fields of List, Map and Struct fields. */
  readonly children: readonly ArrowField[]
}

/** Deepest field nesting read from a schema (a guard against stack exhaustion). */
const MAX_FIELD_DEPTH = 64

/**
 * Custom metadata of a field and of its children, in the order of the field's Arrow children: a
 * List's element; a Map's `entries` struct, whose children are `key` and `value`; a Struct's fields.
 */
export interface FieldMetadataTree {
  readonly metadata?: Readonly<Record<string, string>>
  readonly children?: ReadonlyArray<FieldMetadataTree | undefined>
}

export interface SchemaMessageOptions {
  /** Custom metadata per field, by field position (e.g. `{ 'PARQUET:field_id': '3' }`). */
  readonly fieldMetadata?: ReadonlyArray<Readonly<Record<string, string>> | undefined>
  /**
   * Custom metadata of nested children, by field position (e.g. Parquet field ids of list
   * elements, map keys and values, struct fields). A tree's own `metadata` applies to the field
   * when `fieldMetadata` has none for it.
   */
  readonly fieldMetadataTrees?: ReadonlyArray<FieldMetadataTree | undefined>
  /** Custom metadata of the schema itself. */
  readonly metadata?: Readonly<Record<string, string>>
  /**
   * Time zone to declare on TIMESTAMP_LTZ columns (e.g. 'UTC', so Parquet writers mark them
   * adjusted to UTC). Fluss declares none, which reads back as TIMESTAMP. The values are the same.
   */
  readonly timestampLtzTimezone?: string
}

const FLOAT_PRECISIONS = ['HALF', 'SINGLE', 'DOUBLE'] as const

/** An encapsulated Arrow IPC Schema message for a Fluss row type (Fluss `ArrowUtils.toArrowSchema`). */
export function schemaMessage(rowType: RowType, options: SchemaMessageOptions = {}): Uint8Array {
  const w = new FbWriter()
  const root = w.rootSlot()
  const messageRefs: number[] = []
  const message = w.table(
    [
      { slot: 0, size: 2, value: METADATA_V5 },
      { slot: 1, size: 1, value: MessageHeaderType.Schema },
      { slot: 2, size: 4, value: REF },
      { slot: 3, size: 8, value: 0 },
    ],
    messageRefs,
  )
  w.patch(root, message)
  const schemaFields: FbField[] = [
    { slot: 0, size: 2, value: 0 },
    { slot: 1, size: 4, value: REF },
  ]
  if (options.metadata) schemaFields.push({ slot: 2, size: 4, value: REF })
  const schemaRefs: number[] = []
  w.patch(messageRefs[0], w.table(schemaFields, schemaRefs))
  const fields = w.refVector(rowType.fields.length)
  w.patch(schemaRefs[0], fields.vector)
  rowType.fields.forEach((f, i) => {
    const tree = options.fieldMetadataTrees?.[i]
    const metadata = options.fieldMetadata?.[i] ?? tree?.metadata
    const field = writeField(w, f.name, f.type, columnLayout(f.type), options, metadata, tree?.children)
    w.patch(fields.data + 4 * i, field)
  })
  if (options.metadata) writeKeyValues(w, schemaRefs[1], options.metadata)
  w.alignTo(8)
  const fb = w.result()
  const out = new Uint8Array(8 + fb.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, CONTINUATION, true)
  view.setInt32(4, fb.length, true)
  out.set(fb, 8)
  return out
}

function writeField(
  w: FbWriter,
  name: string,
  type: DataType,
  layout: ColumnLayout,
  options: SchemaMessageOptions,
  metadata: Readonly<Record<string, string>> | undefined,
  childTrees?: ReadonlyArray<FieldMetadataTree | undefined>,
): number {
  let arrowType = layout.arrowType
  if (type.type === 'TIMESTAMP_WITH_LOCAL_TIME_ZONE' && options.timestampLtzTimezone !== undefined) {
    arrowType = { ...arrowType, timezone: options.timestampLtzTimezone } as ArrowType
  }
  const typeId = arrowType.id === 'Unsupported' ? arrowType.typeId : ARROW_TYPE_IDS[arrowType.id]
  const fields: FbField[] = [
    { slot: 0, size: 4, value: REF },
    { slot: 1, size: 1, value: type.nullable ? 1 : 0 },
    { slot: 2, size: 1, value: typeId },
    { slot: 3, size: 4, value: REF },
    { slot: 5, size: 4, value: REF },
  ]
  if (metadata) fields.push({ slot: 6, size: 4, value: REF })
  const refs: number[] = []
  const table = w.table(fields, refs)
  w.patch(refs[0], w.string(name))
  w.patch(refs[1], writeType(w, arrowType))
  const children = w.refVector(layout.children.length)
  w.patch(refs[2], children.vector)
  layout.children.forEach((c, i) => {
    const tree = childTrees?.[i]
    w.patch(
      children.data + 4 * i,
      writeField(w, c.name, c.type, c.layout, options, tree?.metadata, tree?.children),
    )
  })
  if (metadata) writeKeyValues(w, refs[3], metadata)
  return table
}

function writeType(w: FbWriter, t: ArrowType): number {
  switch (t.id) {
    case 'Int':
      return w.table([
        { slot: 0, size: 4, value: t.bitWidth },
        { slot: 1, size: 1, value: t.signed ? 1 : 0 },
      ])
    case 'FloatingPoint':
      return w.table([{ slot: 0, size: 2, value: FLOAT_PRECISIONS.indexOf(t.precision) }])
    case 'Decimal':
      return w.table([
        { slot: 0, size: 4, value: t.precision },
        { slot: 1, size: 4, value: t.scale },
        { slot: 2, size: 4, value: t.bitWidth },
      ])
    case 'Date':
      return w.table([{ slot: 0, size: 2, value: t.unit === 'DAY' ? 0 : 1 }])
    case 'Time':
      return w.table([
        { slot: 0, size: 2, value: TIME_UNITS.indexOf(t.unit) },
        { slot: 1, size: 4, value: t.bitWidth },
      ])
    case 'Timestamp': {
      const refs: number[] = []
      const fields: FbField[] = [{ slot: 0, size: 2, value: TIME_UNITS.indexOf(t.unit) }]
      if (t.timezone !== null) fields.push({ slot: 1, size: 4, value: REF })
      const table = w.table(fields, refs)
      if (t.timezone !== null) w.patch(refs[0], w.string(t.timezone))
      return table
    }
    case 'FixedSizeBinary':
      return w.table([{ slot: 0, size: 4, value: t.byteWidth }])
    case 'Map':
      return w.table([{ slot: 0, size: 1, value: t.keysSorted ? 1 : 0 }])
    default:
      return w.table([])
  }
}

function writeKeyValues(w: FbWriter, ref: number, metadata: Readonly<Record<string, string>>): void {
  const entries = Object.entries(metadata)
  const vector = w.refVector(entries.length)
  w.patch(ref, vector.vector)
  entries.forEach(([key, value], i) => {
    const refs: number[] = []
    const table = w.table(
      [
        { slot: 0, size: 4, value: REF },
        { slot: 1, size: 4, value: REF },
      ],
      refs,
    )
    w.patch(vector.data + 4 * i, table)
    w.patch(refs[0], w.string(key))
    w.patch(refs[1], w.string(value))
  })
}

/** Decodes the fields and custom metadata of a Schema header table. */
export function readSchema(
  fb: FbReader,
  schema: number,
): { fields: ArrowField[]; metadata: Record<string, string> } {
  if (fb.i16(schema, 0, 0) !== 0) throw corrupt('big-endian Arrow data is not supported')
  return { fields: readFields(fb, schema, 1, 0), metadata: readKeyValues(fb, schema, 2) }
}

function readFields(fb: FbReader, table: number, slot: number, depth: number): ArrowField[] {
  if (depth > MAX_FIELD_DEPTH) throw corrupt(`schema fields nest deeper than ${MAX_FIELD_DEPTH} levels`)
  const vector = fb.vector(table, slot, 4, depth === 0 ? 'schema fields' : 'field children')
  const fields: ArrowField[] = []
  for (let i = 0; i < (vector?.count ?? 0); i++) {
    const field = fb.tableAt((vector as { data: number }).data, i, 'field')
    const nullable = fb.u8(field, 1, 0) !== 0
    const dictionary = fb.field(field, 4, 4) >= 0
    const children = readFields(fb, field, 5, depth + 1)
    let arrowType = readType(fb, field)
    const nested = arrowType.id === 'List' || arrowType.id === 'Map' || arrowType.id === 'Struct'
    if (dictionary || (!nested && children.length > 0))
      arrowType = { id: 'Unsupported', typeId: fb.u8(field, 2, 0) }
    const metadata = readKeyValues(fb, field, 6)
    fields.push({
      name: fb.string(field, 0, 'field name') ?? '',
      nullable,
      arrowType,
      type: nested ? nestedFlussType(arrowType, nullable, children) : toFlussType(arrowType, nullable),
      metadata,
      children,
    })
  }
  return fields
}

/** ARRAY, MAP or ROW for a List, Map or Struct field whose children all map to Fluss types. */
function nestedFlussType(a: ArrowType, nullable: boolean, children: readonly ArrowField[]): DataType | null {
  if (children.some(c => c.type === null)) return null
  let t: DataType | null = null
  if (a.id === 'List' && children.length === 1) t = DataTypes.ARRAY(children[0].type as DataType)
  else if (a.id === 'Map' && children.length === 1 && children[0].children.length === 2) {
    const [key, value] = children[0].children
    t = DataTypes.MAP(key.type as DataType, value.type as DataType)
  } else if (a.id === 'Struct' && children.length > 0) {
    t = DataTypes.ROW(
      children.map((c): RowField => ({ name: c.name, type: c.type as DataType, fieldId: fieldIdOf(c) })),
    )
  }
  return t === null ? null : withNullability(t, nullable)
}

function fieldIdOf(f: ArrowField): number {
  const id = Number(f.metadata[PARQUET_FIELD_ID_METADATA_KEY])
  return Number.isInteger(id) ? id : -1
}

function unitAt(fb: FbReader, table: number, fallback: number): ArrowTimeUnit {
  const unit = TIME_UNITS[fb.i16(table, 0, fallback)]
  if (unit === undefined) throw corrupt('unknown time unit')
  return unit
}

function readType(fb: FbReader, field: number): ArrowType {
  const typeId = fb.u8(field, 2, 0)
  const t = fb.tableRef(field, 3, 'field type')
  const unsupported: ArrowType = { id: 'Unsupported', typeId }
  if (t < 0) return unsupported
  switch (typeId) {
    case ARROW_TYPE_IDS.Bool:
      return { id: 'Bool' }
    case ARROW_TYPE_IDS.Utf8:
      return { id: 'Utf8' }
    case ARROW_TYPE_IDS.Binary:
      return { id: 'Binary' }
    case ARROW_TYPE_IDS.Int: {
      const bitWidth = fb.i32(t, 0, 0)
      if (bitWidth !== 8 && bitWidth !== 16 && bitWidth !== 32 && bitWidth !== 64) return unsupported
      return { id: 'Int', bitWidth, signed: fb.u8(t, 1, 0) !== 0 }
    }
    case ARROW_TYPE_IDS.FloatingPoint: {
      const precision = FLOAT_PRECISIONS[fb.i16(t, 0, 0)]
      return precision === undefined ? unsupported : { id: 'FloatingPoint', precision }
    }
    case ARROW_TYPE_IDS.Decimal:
      return {
        id: 'Decimal',
        precision: fb.i32(t, 0, 0),
        scale: fb.i32(t, 1, 0),
        bitWidth: fb.i32(t, 2, 128),
      }
    case ARROW_TYPE_IDS.Date:
      return { id: 'Date', unit: fb.i16(t, 0, 1) === 0 ? 'DAY' : 'MILLISECOND' }
    case ARROW_TYPE_IDS.Time: {
      const unit = unitAt(fb, t, 1)
      const bitWidth = fb.i32(t, 1, 32)
      const expected = unit === 'SECOND' || unit === 'MILLISECOND' ? 32 : 64
      return bitWidth === expected ? { id: 'Time', unit, bitWidth } : unsupported
    }
    case ARROW_TYPE_IDS.Timestamp:
      return { id: 'Timestamp', unit: unitAt(fb, t, 0), timezone: fb.string(t, 1, 'timezone') }
    case ARROW_TYPE_IDS.FixedSizeBinary:
      return { id: 'FixedSizeBinary', byteWidth: fb.i32(t, 0, 0) }
    case ARROW_TYPE_IDS.List:
      return { id: 'List' }
    case ARROW_TYPE_IDS.Struct:
      return { id: 'Struct' }
    case ARROW_TYPE_IDS.Map:
      return { id: 'Map', keysSorted: fb.u8(t, 0, 0) !== 0 }
    default:
      return unsupported
  }
}

function readKeyValues(fb: FbReader, table: number, slot: number): Record<string, string> {
  const vector = fb.vector(table, slot, 4, 'custom metadata')
  const entries: [string, string][] = []
  for (let i = 0; i < (vector?.count ?? 0); i++) {
    const kv = fb.tableAt((vector as { data: number }).data, i, 'key-value')
    entries.push([fb.string(kv, 0, 'metadata key') ?? '', fb.string(kv, 1, 'metadata value') ?? ''])
  }
  return Object.fromEntries(entries)
}
