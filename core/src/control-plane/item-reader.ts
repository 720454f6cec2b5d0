import { FlussError } from '../errors/index.js'
import type { JsonValue, VersionedItem } from '../metastore/index.js'

/**
 * The shape version of the control-plane items this code writes (the `format` field of every
 * item value). Readers accept this shape and every older one; an item with a newer `format` was
 * written by a newer release and is refused rather than misread.
 */
export const ITEM_FORMAT = 1

/** A failure to read a stored item: it was not written by us, or by a newer release. */
export function corruptItem(item: { pk: string; sk: string }, message: string): FlussError {
  return new FlussError('CORRUPT_MESSAGE', `metadata item ${item.pk}/${item.sk}: ${message}`)
}

/** Typed, checked access to the fields of one stored item value. */
export class ItemReader {
  readonly format: number

  constructor(readonly item: VersionedItem) {
    const format = item.value.format
    if (typeof format !== 'number' || !Number.isSafeInteger(format) || format < 1) {
      throw corruptItem(item, `lacks a valid 'format' field (found ${JSON.stringify(format)})`)
    }
    if (format > ITEM_FORMAT) {
      throw corruptItem(item, `has format ${format}, newer than the supported ${ITEM_FORMAT}`)
    }
    this.format = format
  }

  #raw(field: string): JsonValue | undefined {
    return Object.hasOwn(this.item.value, field) ? this.item.value[field] : undefined
  }

  #fail(field: string, expected: string): never {
    throw corruptItem(
      this.item,
      `field '${field}' must be ${expected}, found ${JSON.stringify(this.#raw(field))}`,
    )
  }

  int(field: string): number {
    const v = this.#raw(field)
    return typeof v === 'number' && Number.isSafeInteger(v) ? v : this.#fail(field, 'an integer')
  }

  /** An integer, or null when the field is null or absent. */
  intOrNull(field: string): number | null {
    const v = this.#raw(field)
    return v === null || v === undefined ? null : this.int(field)
  }

  string(field: string): string {
    const v = this.#raw(field)
    return typeof v === 'string' ? v : this.#fail(field, 'a string')
  }

  stringOrNull(field: string): string | null {
    const v = this.#raw(field)
    return v === null || v === undefined ? null : this.string(field)
  }

  intArray(field: string): number[] {
    const v = this.#raw(field)
    if (!Array.isArray(v) || !v.every(e => typeof e === 'number' && Number.isSafeInteger(e))) {
      return this.#fail(field, 'a list of integers')
    }
    return [...(v as number[])]
  }

  stringArray(field: string): string[] {
    const v = this.#raw(field)
    if (!Array.isArray(v) || !v.every(e => typeof e === 'string'))
      return this.#fail(field, 'a list of strings')
    return [...(v as string[])]
  }

  oneOf<T extends string>(field: string, values: readonly T[]): T {
    const v = this.#raw(field)
    return values.includes(v as T) ? (v as T) : this.#fail(field, `one of ${values.join(', ')}`)
  }

  /** Runs a parser over a string field; its failures become CORRUPT_MESSAGE naming the item. */
  parsed<T>(field: string, parse: (text: string) => T): T {
    const text = this.string(field)
    try {
      return parse(text)
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e)
      throw corruptItem(this.item, `field '${field}' cannot be read: ${reason}`)
    }
  }
}
