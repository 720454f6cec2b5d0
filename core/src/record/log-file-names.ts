/** File names of a bucket's log segments, the same names Fluss uses locally and in remote storage. */
export const LOG_FILE_SUFFIX = '.log'
export const INDEX_FILE_SUFFIX = '.index'
export const TIME_INDEX_FILE_SUFFIX = '.timeindex'
export const WRITER_SNAPSHOT_FILE_SUFFIX = '.writer_snapshot'

const OFFSET_DIGITS = 20

/** `<20-digit zero-padded offset><suffix>`. */
export function offsetFileName(offset: number, suffix: string): string {
  return `${String(offset).padStart(OFFSET_DIGITS, '0')}${suffix}`
}

/** The offset in a `<20 digits><suffix>` name, or null for any other name. */
export function parseOffsetFileName(name: string, suffix: string): number | null {
  if (!name.endsWith(suffix)) return null
  const digits = name.slice(0, -suffix.length)
  if (digits.length !== OFFSET_DIGITS || !/^\d+$/.test(digits)) return null
  const offset = Number(digits)
  return Number.isSafeInteger(offset) ? offset : null
}
