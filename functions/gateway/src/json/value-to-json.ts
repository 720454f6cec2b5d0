import type { DataType, Decimal, Timestamp, Value } from '@sluice/core'
import { formatDecimal } from './decimal-text.js'
import { doubleToJson, floatToJson } from './float-text.js'
import { arrayJsonWriter, mapJsonWriter, rowJsonWriter } from './nested-json.js'
import { formatDate, formatDateTime, formatTime } from './temporal.js'

/**
 * Converts an in-memory value of a Fluss type to its canonical JSON form (docs/gateway.md):
 * BIGINT and DECIMAL as strings, bytes as base64, temporal values as ISO-8601 text (TIMESTAMP_LTZ
 * in UTC with `Z`), ARRAY as an array, MAP with string keys as an object and otherwise as an array
 * of `{"key", "value"}` entries, ROW as an object keyed by field name (`nested-json.ts`).
 */
export type ValueJsonWriter = (value: Value) => unknown

export function valueJsonWriter(type: DataType): ValueJsonWriter {
  const write = nonNullWriter(type)
  return value => (value === null || value === undefined ? null : write(value))
}

function nonNullWriter(type: DataType): ValueJsonWriter {
  switch (type.type) {
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'CHAR':
    case 'STRING':
      return v => v
    case 'BIGINT':
      return v => String(v)
    case 'FLOAT':
      return v => floatToJson(v as number)
    case 'DOUBLE':
      return v => doubleToJson(v as number)
    case 'DECIMAL':
      return v => formatDecimal(v as Decimal, type.scale)
    case 'BINARY':
    case 'BYTES':
      return v =>
        Buffer.from(
          (v as Uint8Array).buffer,
          (v as Uint8Array).byteOffset,
          (v as Uint8Array).byteLength,
        ).toString('base64')
    case 'DATE':
      return v => formatDate(v as number)
    case 'TIME_WITHOUT_TIME_ZONE':
      return v => formatTime(v as number)
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return v => timestampText(v as Timestamp, '')
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return v => timestampText(v as Timestamp, 'Z')
    case 'ARRAY':
      return arrayJsonWriter(type, valueJsonWriter)
    case 'MAP':
      return mapJsonWriter(type, valueJsonWriter)
    case 'ROW':
      return rowJsonWriter(type, valueJsonWriter)
  }
}

/** ISO-8601 text; instants outside a JS Date's range fall back to epoch microseconds as a string. */
function timestampText(ts: Timestamp, zone: string): string {
  const text = formatDateTime(ts.millis, ts.nanoOfMillis)
  return text === null ? ts.toMicros().toString() : `${text}${zone}`
}
