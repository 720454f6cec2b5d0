import { isUtf8 } from 'node:buffer'
import { invalidArgument } from '../errors/gateway-error.js'
import { isLongNumberLiteral, LongNumber } from './long-number.js'

/**
 * Parses a JSON request body strictly: UTF-8 only, no empty body, no duplicate object keys, at
 * most `maxDepth` nested arrays/objects, and number literals a double cannot hold exactly kept as
 * LongNumber. Every failure is a 400 `invalid_argument`.
 *
 * The native parser does the work; a scan of the (then known valid) text checks depth, finds long
 * numbers and counts object keys. The parsed value holds fewer keys than the text exactly when an
 * object repeats a key, and only then are the keys compared one by one to name it. Only a body
 * that has inexact number literals is parsed again by `parseExact`.
 */
export function parseJsonBody(bytes: Uint8Array, maxDepth: number): unknown {
  if (!isUtf8(bytes)) throw invalidArgument('The request body is not valid UTF-8.')
  const decoded = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  // A leading byte order mark is ignored, as JSON allows.
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded
  if (/^\s*$/.test(text)) throw invalidArgument('The request body is empty; a JSON document is required.')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw invalidArgument(`The request body is not valid JSON: ${(e as Error).message}`)
  }
  const scan = scanJson(text, maxDepth)
  if (countKeys(value) !== scan.keys) checkDuplicateKeys(text)
  return scan.long ? parseExact(text) : value
}

/** Checks the nesting depth of valid JSON text; counts its object keys and finds long number literals. */
export function scanJson(text: string, maxDepth: number): { keys: number; long: boolean } {
  const inObject: boolean[] = []
  let keyNext = false
  let keys = 0
  let long = false
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      if (keyNext) {
        keys++
        keyNext = false
      }
      i = stringEnd(text, i + 1)
    } else if (c === 123 || c === 91) {
      if (inObject.length >= maxDepth) {
        throw invalidArgument(`The request body nests arrays and objects deeper than ${maxDepth} levels.`)
      }
      inObject.push(c === 123)
      keyNext = c === 123
    } else if (c === 125 || c === 93) {
      inObject.pop()
      keyNext = false
    } else if (c === 44) {
      keyNext = inObject.length > 0 && inObject[inObject.length - 1]
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      const end = numberEnd(text, i)
      if (!long && isLongNumberLiteral(text, i, end)) long = true
      i = end - 1
    }
  }
  return { keys, long }
}

/** Keys of every object in a JSON.parse result (its depth is already checked). */
function countKeys(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  let count = 0
  if (Array.isArray(value)) {
    for (const item of value) count += countKeys(item)
    return count
  }
  const record = value as Record<string, unknown>
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue
    count += 1 + countKeys(record[key])
  }
  return count
}

/** Throws for the first object of valid JSON text that has a key twice. */
function checkDuplicateKeys(text: string): void {
  const keys: (Set<string> | null)[] = []
  let keyNext = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      const end = stringEnd(text, i + 1)
      const top = keys.length > 0 ? keys[keys.length - 1] : null
      if (keyNext && top !== null) {
        const key = decodeString(text, i + 1, end)
        if (top.has(key))
          throw invalidArgument(`The request body has the key ${JSON.stringify(key)} twice in one object.`)
        top.add(key)
        keyNext = false
      }
      i = end
    } else if (c === 123 || c === 91) {
      keys.push(c === 123 ? new Set() : null)
      keyNext = c === 123
    } else if (c === 125 || c === 93) {
      keys.pop()
      keyNext = false
    } else if (c === 44) {
      keyNext = keys.length > 0 && keys[keys.length - 1] !== null
    }
  }
}

/** Index of the closing quote of the string whose content starts at `from`. */
function stringEnd(text: string, from: number): number {
  let i = from
  for (;;) {
    const q = text.indexOf('"', i)
    let backslashes = 0
    for (let j = q - 1; j >= from && text.charCodeAt(j) === 92; j--) backslashes++
    if (backslashes % 2 === 0) return q
    i = q + 1
  }
}

function numberEnd(text: string, from: number): number {
  let i = from + 1
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const numeric = (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45
    if (!numeric) break
  }
  return i
}

function decodeString(text: string, start: number, end: number): string {
  const raw = text.slice(start, end)
  return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw
}

/**
 * A second parser for valid JSON text, used only when some number literal needs its exact text:
 * such literals become LongNumber, everything else is as JSON.parse makes it. Recursion is bounded
 * because `scanJson` has checked the depth first.
 */
export function parseExact(text: string): unknown {
  const state = { text, i: 0 }
  skipSpace(state)
  return readValue(state)
}

interface ParseState {
  readonly text: string
  i: number
}

function skipSpace(s: ParseState): void {
  while (s.i < s.text.length) {
    const c = s.text.charCodeAt(s.i)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return
    s.i++
  }
}

function readValue(s: ParseState): unknown {
  const c = s.text.charCodeAt(s.i)
  if (c === 123) return readObject(s)
  if (c === 91) return readArray(s)
  if (c === 34) {
    const end = stringEnd(s.text, s.i + 1)
    const value = decodeString(s.text, s.i + 1, end)
    s.i = end + 1
    return value
  }
  if (c === 45 || (c >= 48 && c <= 57)) {
    const end = numberEnd(s.text, s.i)
    const start = s.i
    s.i = end
    const literal = s.text.slice(start, end)
    return isLongNumberLiteral(s.text, start, end) ? new LongNumber(literal) : Number(literal)
  }
  const word = s.text.startsWith('true', s.i) ? 'true' : s.text.startsWith('false', s.i) ? 'false' : 'null'
  s.i += word.length
  return word === 'null' ? null : word === 'true'
}

function readArray(s: ParseState): unknown[] {
  const out: unknown[] = []
  s.i++
  skipSpace(s)
  if (s.text.charCodeAt(s.i) === 93) {
    s.i++
    return out
  }
  for (;;) {
    skipSpace(s)
    out.push(readValue(s))
    skipSpace(s)
    if (s.text.charCodeAt(s.i++) === 93) return out
  }
}

function readObject(s: ParseState): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  s.i++
  skipSpace(s)
  if (s.text.charCodeAt(s.i) === 125) {
    s.i++
    return out
  }
  for (;;) {
    skipSpace(s)
    const end = stringEnd(s.text, s.i + 1)
    const key = decodeString(s.text, s.i + 1, end)
    s.i = end + 1
    skipSpace(s)
    s.i++ // ':'
    skipSpace(s)
    // defineProperty keeps a "__proto__" key an own property, as JSON.parse does.
    Object.defineProperty(out, key, {
      value: readValue(s),
      enumerable: true,
      writable: true,
      configurable: true,
    })
    skipSpace(s)
    if (s.text.charCodeAt(s.i++) === 125) return out
  }
}
