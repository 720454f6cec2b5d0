import { FlussError } from '../errors/index.js'

/**
 * The kind of change a log record carries. The byte values are Fluss's (`ChangeType.toByteValue`)
 * and appear on the wire in the change-type vector of ARROW batches and in the attributes byte of
 * INDEXED/COMPACTED records.
 */
export const ChangeType = {
  APPEND_ONLY: 0,
  INSERT: 1,
  UPDATE_BEFORE: 2,
  UPDATE_AFTER: 3,
  DELETE: 4,
} as const

export type ChangeType = (typeof ChangeType)[keyof typeof ChangeType]

export type ChangeTypeShortString = '+A' | '+I' | '-U' | '+U' | '-D'

const SHORT_STRINGS: readonly ChangeTypeShortString[] = ['+A', '+I', '-U', '+U', '-D']
const NAMES: readonly (keyof typeof ChangeType)[] = [
  'APPEND_ONLY',
  'INSERT',
  'UPDATE_BEFORE',
  'UPDATE_AFTER',
  'DELETE',
]

export function isChangeType(value: number): value is ChangeType {
  return Number.isInteger(value) && value >= 0 && value < SHORT_STRINGS.length
}

/** Decodes a change-type byte; anything outside 0..4 is a corrupt record. */
export function changeTypeFromByte(value: number): ChangeType {
  if (!isChangeType(value)) {
    throw new FlussError('CORRUPT_RECORD_EXCEPTION', `unsupported change type byte ${value}, expected 0..4`)
  }
  return value
}

export function changeTypeShortString(type: ChangeType): ChangeTypeShortString {
  return SHORT_STRINGS[type]
}

export function changeTypeName(type: ChangeType): keyof typeof ChangeType {
  return NAMES[type]
}

export function changeTypeFromShortString(text: string): ChangeType {
  const index = SHORT_STRINGS.indexOf(text as ChangeTypeShortString)
  if (index < 0) {
    throw new FlussError(
      'INVALID_REQUEST',
      `unknown change type '${text}', expected one of ${SHORT_STRINGS.join(' ')}`,
    )
  }
  return index as ChangeType
}
