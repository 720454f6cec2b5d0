import type { AutoPartitionTimeUnit } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { detectInvalidName, detectReservedPrefix } from '@sluice/core/metadata'
import type { LocalDateTime } from './time-zone.js'

/**
 * Partition time formats: the subset of Java `DateTimeFormatter` patterns Fluss allows for
 * auto-partition names (`PartitionUtils.validateTimeFormat`): fixed-width numeric fields from the
 * largest unit to the smallest, exactly the fields the time unit needs, and literals (`-`, `_`,
 * or quoted text). Names sort in time order under plain string comparison, which is what
 * retention relies on.
 */

export const TABLE_AUTO_PARTITION_TIME_FORMAT_KEY = 'table.auto-partition.time-format'

export const DEFAULT_TIME_FORMATS: Readonly<Record<AutoPartitionTimeUnit, string>> = {
  YEAR: 'yyyy',
  QUARTER: 'yyyyQ',
  MONTH: 'yyyyMM',
  DAY: 'yyyyMMdd',
  HOUR: 'yyyyMMddHH',
}

/** The format of a DATE-typed auto-partition key (its partition values render as `yyyy-MM-dd`). */
export const DATE_KEY_TIME_FORMAT = 'yyyy-MM-dd'

type FieldName = 'year' | 'quarter' | 'month' | 'day' | 'hour'

const FIELD_WIDTHS: Readonly<Record<FieldName, number>> = { year: 4, quarter: 1, month: 2, day: 2, hour: 2 }

const FIELD_OF_LETTER: Readonly<Record<string, FieldName>> = {
  y: 'year',
  u: 'year',
  Q: 'quarter',
  q: 'quarter',
  M: 'month',
  L: 'month',
  d: 'day',
  H: 'hour',
}

const UNIT_FIELDS: Readonly<Record<AutoPartitionTimeUnit, readonly FieldName[]>> = {
  YEAR: ['year'],
  QUARTER: ['year', 'quarter'],
  MONTH: ['year', 'month'],
  DAY: ['year', 'month', 'day'],
  HOUR: ['year', 'month', 'day', 'hour'],
}

/** Every letter Java's `DateTimeFormatter.ofPattern` knows; other letters make the pattern invalid. */
const JAVA_PATTERN_LETTERS = new Set('GuyDMLdQqYwWEecFahKkHmsSAnNVvzOXxZpBg')

export type TimeFormatToken =
  | { readonly kind: 'field'; readonly field: FieldName; readonly letter: string }
  | { readonly kind: 'literal'; readonly text: string }

/** A validated time format for one time unit. */
export interface TimeFormat {
  readonly pattern: string
  readonly tokens: readonly TimeFormatToken[]
  readonly regex: RegExp
}

function invalidFormat(message: string): FlussError {
  return new FlussError(
    'INVALID_TABLE_EXCEPTION',
    `Invalid table property '${TABLE_AUTO_PARTITION_TIME_FORMAT_KEY}': ${message}`,
  )
}

function scan(pattern: string): { tokens: TimeFormatToken[]; widths: number[] } {
  const tokens: TimeFormatToken[] = []
  const widths: number[] = []
  const literal = (text: string) => tokens.push({ kind: 'literal', text })
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        literal("'")
        i += 2
        continue
      }
      const end = pattern.indexOf("'", i + 1)
      if (end < 0) throw invalidFormat(`Invalid date-time format pattern '${pattern}'.`)
      literal(pattern.slice(i + 1, end).replaceAll("''", "'"))
      i = end + 1
      continue
    }
    if ('{}#'.includes(c)) throw invalidFormat(`Invalid date-time format pattern '${pattern}'.`)
    if (c === '[' || c === ']') {
      throw invalidFormat(`Time format '${pattern}' must not contain optional sections ('[' or ']').`)
    }
    if (!/[A-Za-z]/.test(c)) {
      literal(c)
      i++
      continue
    }
    if (!JAVA_PATTERN_LETTERS.has(c)) throw invalidFormat(`Invalid date-time format pattern '${pattern}'.`)
    let end = i + 1
    while (pattern[end] === c) end++
    const field = FIELD_OF_LETTER[c]
    if (field === undefined) {
      throw invalidFormat(`Time format '${pattern}' contains unsupported time field '${c}'.`)
    }
    tokens.push({ kind: 'field', field, letter: c })
    widths.push(end - i)
    i = end
  }
  return { tokens, widths }
}

function fieldValue(field: FieldName, t: LocalDateTime): number {
  switch (field) {
    case 'year':
      return t.year
    case 'quarter':
      return Math.floor((t.month - 1) / 3) + 1
    case 'month':
      return t.month
    case 'day':
      return t.day
    case 'hour':
      return t.hour
  }
}

/** Renders a field like Java: `yyyy` pads to 4 digits and marks wider years with `+`. */
function renderField(token: TimeFormatToken & { kind: 'field' }, t: LocalDateTime): string {
  let value = fieldValue(token.field, t)
  if (token.field !== 'year') return String(value).padStart(FIELD_WIDTHS[token.field], '0')
  if (token.letter === 'y' && value <= 0) value = 1 - value
  const digits = String(Math.abs(value)).padStart(4, '0')
  if (value < 0) return `-${digits}`
  return value > 9999 ? `+${digits}` : digits
}

export function formatTime(format: TimeFormat, t: LocalDateTime): string {
  return format.tokens.map(tok => (tok.kind === 'literal' ? tok.text : renderField(tok, t))).join('')
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')

function buildRegex(tokens: readonly TimeFormatToken[]): RegExp {
  const source = tokens
    .map(tok => (tok.kind === 'literal' ? escapeRegex(tok.text) : `(\\d{${FIELD_WIDTHS[tok.field]}})`))
    .join('')
  return new RegExp(`^${source}$`)
}

const FIELD_RANGES: Readonly<Record<FieldName, readonly [number, number]>> = {
  year: [0, 9999],
  quarter: [1, 4],
  month: [1, 12],
  day: [1, 31],
  hour: [0, 23],
}

/** True when `text` reads back as a time in `format` (each field in range; `y` years from 1). */
export function isValidPartitionTime(format: TimeFormat, text: string): boolean {
  const m = format.regex.exec(text)
  if (m === null) return false
  const fields = format.tokens.filter(t => t.kind === 'field')
  return fields.every((tok, i) => {
    const value = Number(m[i + 1])
    const [min, max] = FIELD_RANGES[tok.field]
    return value >= (tok.letter === 'y' ? 1 : min) && value <= max
  })
}

const REPRESENTATIVE_TIME: LocalDateTime = {
  year: 2024,
  month: 11,
  day: 11,
  hour: 11,
  minute: 0,
  second: 0,
  millis: 0,
}

/**
 * Checks `pattern` for `unit` as Fluss does at table creation and compiles it. Throws
 * INVALID_TABLE_EXCEPTION naming the property and the problem.
 */
export function compileTimeFormat(unit: AutoPartitionTimeUnit, pattern: string): TimeFormat {
  const { tokens, widths } = scan(pattern)
  const fields = tokens.flatMap(t => (t.kind === 'field' ? [t.field] : []))
  fields.forEach((field, i) => {
    if (widths[i] !== FIELD_WIDTHS[field]) {
      throw invalidFormat(
        `Time field '${field}' in format '${pattern}' must have fixed width ${FIELD_WIDTHS[field]}, but found ${widths[i]}.`,
      )
    }
  })
  const expected = UNIT_FIELDS[unit]
  if (fields.length !== expected.length || fields.some((f, i) => f !== expected[i])) {
    throw invalidFormat(
      `Time format '${pattern}' must contain fields [${expected.join(', ')}] in this order for time unit '${unit}', but found [${fields.join(', ')}].`,
    )
  }
  const format: TimeFormat = { pattern, tokens, regex: buildRegex(tokens) }
  const sample = formatTime(format, REPRESENTATIVE_TIME)
  const problem = detectInvalidName(sample) ?? detectReservedPrefix(sample)
  if (problem !== undefined) {
    throw invalidFormat(`Time format '${pattern}' generates invalid partition value '${sample}': ${problem}.`)
  }
  return format
}
