import { FlussError } from '../errors/index.js'

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  nano: 1e-6,
  nanos: 1e-6,
  nanosecond: 1e-6,
  nanoseconds: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  micro: 1e-3,
  micros: 1e-3,
  microsecond: 1e-3,
  microseconds: 1e-3,
  ms: 1,
  milli: 1,
  millis: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
}

const MEMORY_UNITS: Record<string, number> = {
  b: 1,
  byte: 1,
  bytes: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  kibibytes: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  mebibytes: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  gibibytes: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
  tebibytes: 1024 ** 4,
}

const NUMBER_WITH_UNIT = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Zµ]*)\s*$/

/**
 * Parses Fluss durations: `30s`, `3min`, `7 d`, `500ms` (labels as in Fluss's TimeUtils, any case).
 * A bare number is milliseconds. Returns whole milliseconds.
 */
export function parseDuration(text: string | number, key = 'duration'): number {
  if (typeof text === 'number') {
    if (!Number.isFinite(text) || text < 0) throw invalid(key, String(text), 'a non-negative duration')
    return checkedResult(Math.round(text), key, String(text))
  }
  const ms = parseScaled(text, DURATION_UNITS)
  if (ms === undefined) throw invalid(key, text, "a duration such as '30s', '3min' or '500ms'")
  return checkedResult(ms, key, text)
}

/** Parses Fluss memory sizes: `16mb`, `1gb`, `4k` (labels as in Fluss's MemorySize). A bare number is bytes. */
export function parseMemorySize(text: string | number, key = 'size'): number {
  if (typeof text === 'number') {
    if (!Number.isSafeInteger(text) || text < 0)
      throw invalid(key, String(text), 'a non-negative size in bytes')
    return text
  }
  const bytes = parseScaled(text, MEMORY_UNITS)
  if (bytes === undefined) throw invalid(key, text, "a size such as '16mb', '1gb' or '4kb'")
  return checkedResult(bytes, key, text)
}

function parseScaled(text: string, units: Record<string, number>): number | undefined {
  const m = NUMBER_WITH_UNIT.exec(text)
  if (!m) return undefined
  const unit = m[2].toLowerCase()
  if (unit !== '' && !Object.hasOwn(units, unit)) return undefined
  const factor = unit === '' ? 1 : units[unit]
  return Math.round(Number(m[1]) * factor)
}

function checkedResult(value: number, key: string, text: string): number {
  if (!Number.isSafeInteger(value)) throw invalid(key, text, `a value of at most ${Number.MAX_SAFE_INTEGER}`)
  return value
}

export function formatDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ]
  for (const [f, u] of units) if (ms >= f && ms % f === 0) return `${ms / f} ${u}`
  return `${ms} ms`
}

export function formatMemorySize(bytes: number): string {
  const units: [number, string][] = [
    [1024 ** 4, 'tb'],
    [1024 ** 3, 'gb'],
    [1024 ** 2, 'mb'],
    [1024, 'kb'],
  ]
  for (const [f, u] of units) if (bytes >= f && bytes % f === 0) return `${bytes / f} ${u}`
  return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`
}

function invalid(key: string, value: string, expected: string): FlussError {
  return new FlussError(
    'INVALID_CONFIG_EXCEPTION',
    `Invalid value '${value}' for '${key}': expected ${expected}.`,
  )
}
