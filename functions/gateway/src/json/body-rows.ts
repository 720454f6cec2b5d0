import { isUtf8 } from 'node:buffer'
import type { Row } from '@sluice/core'
import { digitsEnd, hasControl, nextIndex, skipWhitespace } from './json-bytes.js'
import { isLongNumberLiteral } from './long-number.js'
import { type RowColumns, rowPasses } from './row-columns.js'
import { EMPTY_BUFFER, type SlicingBuffer, TextWindow } from './text-window.js'

/** `{"rows": [{...}]}`: the body object, the row array and a row object. */
const ROW_DEPTH = 3
/** Value readers take a path for their messages; this reader never reports them. */
const UNUSED_PATH = ''
const STAMP_LIMIT = 1 << 30
const UTF8_BOM = [0xef, 0xbb, 0xbf]

type Primitive = string | number | boolean | null

/**
 * Reads the rows of a write request body straight from its UTF-8 bytes: `{"<member>": [{row},
 * ...]}` with one row object per row, decoded in one pass into rows of the table's row type,
 * without building the parsed JSON document (no row objects, no copies of the text around values).
 * Every value goes through the same per-column value reader and checker as JsonRowReader.
 *
 * It accepts only what the general path (parseJsonBody, the body schema, JsonRowReader) accepts,
 * and gives the same rows. Anything else answers undefined, and the caller takes the general
 * path, which gives the rows or words the error: a body with other members, values that are
 * arrays or objects (ARRAY, MAP and ROW columns), number literals a double cannot hold, an
 * unknown, repeated or not allowed column, a bad value, more than `maxRows` rows, or anything
 * that is not JSON. Strings and keys are decoded as JSON.parse decodes them (escapes included).
 *
 * One reader serves one row type and member; `read` is synchronous, so requests may share it.
 */
export class JsonBodyRowReader {
  readonly #columns: RowColumns
  /** `"<member>"` as UTF-8; a member name written with escapes is left to the general path. */
  readonly #member: Uint8Array
  /**
   * Column names and their closing quote as UTF-8, matched against keys byte for byte; null when
   * a name needs escaping in JSON. Keys that do not match are decoded and looked up.
   */
  readonly #names: (Uint8Array | null)[]
  /** Row number that last named each column (repeated keys are refused). */
  readonly #seen: Int32Array
  #stamp = 0
  #buf = EMPTY_BUFFER
  /** Where the last token read ended. */
  #i = 0
  readonly #window = new TextWindow()
  /** Whether the body has a control character anywhere (strings are then checked one by one). */
  #control = false
  /** Index of the next backslash at or after the current string (the body's length: none). */
  #backslash = -1

  constructor(columns: RowColumns, member: string) {
    this.#columns = columns
    this.#member = Buffer.from(`"${member}"`)
    this.#names = columns.names.map(n => (JSON.stringify(n) === `"${n}"` ? Buffer.from(`${n}"`) : null))
    this.#seen = new Int32Array(columns.names.length)
  }

  /** The rows, or undefined when the general path has to read this body (see the class comment). */
  read(bytes: Uint8Array, maxRows: number, maxDepth: number): Row[] | undefined {
    if (maxDepth < ROW_DEPTH || !isUtf8(bytes)) return undefined
    if (this.#stamp > STAMP_LIMIT) {
      this.#seen.fill(0)
      this.#stamp = 0
    }
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as SlicingBuffer
    this.#buf = buf
    this.#control = hasControl(buf, 0, buf.length)
    this.#backslash = -1
    this.#window.reset(buf)
    try {
      return this.#body(maxRows)
    } finally {
      this.#buf = EMPTY_BUFFER
      this.#window.reset()
    }
  }

  #body(maxRows: number): Row[] | undefined {
    const buf = this.#buf
    // A leading byte order mark is ignored, as by parseJsonBody.
    const bom = UTF8_BOM.every((b, k) => buf[k] === b) ? UTF8_BOM.length : 0
    let i = skipWhitespace(buf, bom)
    if (buf[i] !== 123) return undefined
    i = skipWhitespace(buf, i + 1)
    if (!this.#matches(i, this.#member)) return undefined
    i = skipWhitespace(buf, i + this.#member.length)
    if (buf[i] !== 58) return undefined
    i = skipWhitespace(buf, i + 1)
    if (buf[i] !== 91) return undefined
    const rows = this.#rowList(skipWhitespace(buf, i + 1), maxRows)
    if (rows === undefined) return undefined
    i = skipWhitespace(buf, this.#i)
    if (buf[i] !== 125) return undefined
    return skipWhitespace(buf, i + 1) === buf.length ? rows : undefined
  }

  /** The row objects of the array whose first element starts at `at`; this.#i ends after `]`. */
  #rowList(at: number, maxRows: number): Row[] | undefined {
    const buf = this.#buf
    const rows: Row[] = []
    let i = at
    for (;;) {
      if (buf[i] !== 123 || rows.length === maxRows) return undefined
      this.#i = i
      const row = this.#row()
      if (row === undefined) return undefined
      rows.push(row)
      i = skipWhitespace(buf, this.#i)
      const c = buf[i]
      if (c === 93) break
      if (c !== 44) return undefined
      i = skipWhitespace(buf, i + 1)
    }
    this.#i = i + 1
    return rows
  }

  /** The row object whose `{` is at this.#i; this.#i ends after its `}`. */
  #row(): Row | undefined {
    const buf = this.#buf
    const { allowed, readers } = this.#columns
    const seen = this.#seen
    const stamp = ++this.#stamp
    const row: Row = this.#columns.empty.slice()
    let i = skipWhitespace(buf, this.#i + 1)
    let next = 0
    if (buf[i] !== 125) {
      for (;;) {
        if (buf[i] !== 34) return undefined
        const column = this.#key(i, next)
        if (column < 0 || seen[column] === stamp || !allowed[column]) return undefined
        seen[column] = stamp
        next = column + 1
        i = skipWhitespace(buf, this.#i)
        if (buf[i] !== 58) return undefined
        this.#i = skipWhitespace(buf, i + 1)
        const json = this.#value()
        if (json === undefined) return undefined
        try {
          row[column] = readers[column](json, UNUSED_PATH)
        } catch {
          return undefined
        }
        i = skipWhitespace(buf, this.#i)
        const c = buf[i]
        if (c === 125) break
        if (c !== 44) return undefined
        i = skipWhitespace(buf, i + 1)
      }
    }
    this.#i = i + 1
    return rowPasses(this.#columns, row) ? row : undefined
  }

  /**
   * The column named by the key whose opening quote is at `at` (-1: none); `expected` is tried
   * first, as rows usually name columns in table order. this.#i ends after the closing quote.
   */
  #key(at: number, expected: number): number {
    const name = expected < this.#names.length ? this.#names[expected] : null
    if (name !== null && this.#matches(at + 1, name)) {
      this.#i = at + 1 + name.length
      return expected
    }
    this.#i = at
    const key = this.#string()
    return key === undefined ? -1 : (this.#columns.index.get(key) ?? -1)
  }

  #matches(at: number, bytes: Uint8Array): boolean {
    const buf = this.#buf
    for (let k = 0; k < bytes.length; k++) if (buf[at + k] !== bytes[k]) return false
    return true
  }

  /** The JSON string, number, boolean or null at this.#i (undefined: anything else). */
  #value(): Primitive | undefined {
    const buf = this.#buf
    const i = this.#i
    const c = buf[i]
    if (c === 34) return this.#string()
    if (c === 45 || (c >= 48 && c <= 57)) return this.#number()
    if (c === 110 && buf[i + 1] === 117 && buf[i + 2] === 108 && buf[i + 3] === 108) {
      this.#i = i + 4
      return null
    }
    if (c === 116 && buf[i + 1] === 114 && buf[i + 2] === 117 && buf[i + 3] === 101) {
      this.#i = i + 4
      return true
    }
    if (c === 102 && buf[i + 1] === 97 && buf[i + 2] === 108 && buf[i + 3] === 115 && buf[i + 4] === 101) {
      this.#i = i + 5
      return false
    }
    return undefined
  }

  /**
   * The string whose opening quote is at this.#i. Text without escapes or control characters is
   * decoded as it is; any other string goes through JSON.parse (which refuses control characters).
   */
  #string(): string | undefined {
    const buf = this.#buf
    const start = this.#i + 1
    const end = buf.indexOf(34, start)
    if (end < 0) return undefined
    if (this.#backslash < start) this.#backslash = nextIndex(buf, 92, start)
    if (this.#backslash < end || (this.#control && hasControl(buf, start, end))) {
      return this.#escapedString(start)
    }
    this.#i = end + 1
    return this.#window.text(start, end)
  }

  #escapedString(start: number): string | undefined {
    const buf = this.#buf
    let i = start
    while (i < buf.length && buf[i] !== 34) i += buf[i] === 92 ? 2 : 1
    if (i >= buf.length) return undefined
    this.#i = i + 1
    try {
      return JSON.parse(buf.utf8Slice(start - 1, i + 1)) as string
    } catch {
      return undefined
    }
  }

  /** The number literal at this.#i, as JSON.parse reads it; undefined for a long literal or bad syntax. */
  #number(): number | undefined {
    const buf = this.#buf
    const start = this.#i
    let i = start
    let c = buf[i]
    const negative = c === 45
    if (negative) c = buf[++i]
    let value = 0
    let digits = 0
    if (c === 48) {
      c = buf[++i]
      digits = 1
    } else if (c >= 49 && c <= 57) {
      do {
        value = value * 10 + (c - 48)
        digits++
        c = buf[++i]
      } while (c >= 48 && c <= 57)
    } else {
      return undefined
    }
    let plain = true
    if (c === 46) {
      plain = false
      i = digitsEnd(buf, i + 1)
      if (i < 0) return undefined
      c = buf[i]
    }
    if (c === 101 || c === 69) {
      plain = false
      c = buf[++i]
      i = digitsEnd(buf, c === 43 || c === 45 ? i + 1 : i)
      if (i < 0) return undefined
    }
    this.#i = i
    // Integers of up to 15 digits are exact in a double; other literals are read as JSON.parse reads them.
    if (plain && digits <= 15) return negative ? -value : value
    const text = buf.latin1Slice(start, i)
    return isLongNumberLiteral(text, 0, text.length) ? undefined : Number(text)
  }
}
