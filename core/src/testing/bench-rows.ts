import { Decimal, type Row, Timestamp } from '../row/value.js'
import { DataTypes, notNull, type RowType } from '../types/data-type.js'

/** The rows of the benchmarks: ~1 KiB each, 15 mixed columns, as events of a web analytics feed. */
export const BENCH_ROW_TYPE: RowType = DataTypes.ROW(
  [
    ['id', notNull(DataTypes.BIGINT())],
    ['user_name', DataTypes.STRING()],
    ['event', DataTypes.STRING()],
    ['event_time', DataTypes.TIMESTAMP_LTZ(3)],
    ['amount', DataTypes.DOUBLE()],
    ['quantity', DataTypes.INT()],
    ['is_test', DataTypes.BOOLEAN()],
    ['price', DataTypes.DECIMAL(10, 2)],
    ['country', DataTypes.STRING()],
    ['device', DataTypes.STRING()],
    ['payload', DataTypes.STRING()],
    ['session_id', DataTypes.STRING()],
    ['score', DataTypes.FLOAT()],
    ['day', DataTypes.DATE()],
    ['tags', DataTypes.STRING()],
  ].map(([name, type], fieldId) => ({
    name: name as string,
    type: type as RowType['fields'][number]['type'],
    fieldId,
  })),
)

const EVENTS = ['click', 'view', 'purchase', 'signup', 'logout']
const COUNTRIES = ['DE', 'US', 'FR', 'JP', 'BR']
const DEVICES = ['android-phone', 'iphone-15-pro', 'desktop-chrome', 'tablet-ipad']

/** `count` rows of about 1 KiB each (as Fluss rows) and the same data as plain JSON objects. */
export function benchRows(count: number): { rows: Row[]; objects: Record<string, unknown>[] } {
  const rows: Row[] = []
  const objects: Record<string, unknown>[] = []
  for (let i = 0; i < count; i++) {
    const payload = `${'lorem ipsum dolor sit amet '.repeat(29)}#${i}`
    const session = `${(i * 2654435761).toString(16).padStart(8, '0')}-4b1d-8c2e-9f3a-${i.toString(16).padStart(12, '0')}`
    const tags = `tag-${i % 7},tag-${i % 11},tag-${i % 13},segment-${i % 5},cohort-2024`
    const millis = 1_700_000_000_000 + i * 17
    const row: Row = [
      BigInt(i),
      `user-${i % 9973}@example.org`,
      EVENTS[i % 5],
      new Timestamp(millis),
      i * 0.75,
      i % 1000,
      i % 10 === 0,
      new Decimal(BigInt(i % 100000), 2),
      COUNTRIES[i % 5],
      DEVICES[i % 4],
      payload,
      session,
      Math.fround(i / 7),
      19000 + (i % 365),
      tags,
    ]
    rows.push(row)
    objects.push({
      id: i,
      user_name: row[1],
      event: row[2],
      event_time: millis,
      amount: row[4],
      quantity: row[5],
      is_test: row[6],
      price: (row[7] as Decimal).toString(),
      country: row[8],
      device: row[9],
      payload,
      session_id: session,
      score: row[12],
      day: row[13],
      tags,
    })
  }
  return { rows, objects }
}
