import { FlussError } from '@sluice/core/errors'

/**
 * JSON that keeps 64-bit integers exact. Iceberg snapshot ids are Java longs and other writers
 * (Athena, Glue's optimizer, Spark) produce ids above 2^53, which `JSON.parse` silently rounds.
 * `parseJson` returns integers beyond the safe range as bigint; `stringifyJson` writes bigints as
 * plain digits. Key order is preserved, so parse → stringify reproduces compact input exactly.
 */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json }

function corrupt(message: string): FlussError {
  return new FlussError('CORRUPT_MESSAGE', message)
}

class Parser {
  pos = 0
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw corrupt(`invalid JSON at offset ${this.pos}: ${what}`)
  }

  skipSpace(): void {
    const t = this.text
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos)
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
      this.pos++
    }
  }

  value(depth: number): Json {
    if (depth > 64) this.fail('nesting deeper than 64 levels')
    this.skipSpace()
    const c = this.text[this.pos]
    if (c === '{') return this.object(depth)
    if (c === '[') return this.array(depth)
    if (c === '"') return this.string()
    if (c === '-' || (c >= '0' && c <= '9')) return this.number()
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length
        return v
      }
    }
    return this.fail(c === undefined ? 'unexpected end' : `unexpected character '${c}'`)
  }

  object(depth: number): { [key: string]: Json } {
    const out: { [key: string]: Json } = {}
    this.pos++
    this.skipSpace()
    if (this.text[this.pos] === '}') {
      this.pos++
      return out
    }
    for (;;) {
      this.skipSpace()
      if (this.text[this.pos] !== '"') this.fail('expected a string key')
      const key = this.string()
      this.skipSpace()
      if (this.text[this.pos] !== ':') this.fail("expected ':'")
      this.pos++
      Object.defineProperty(out, key, {
        value: this.value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      })
      this.skipSpace()
      const c = this.text[this.pos++]
      if (c === '}') return out
      if (c !== ',') this.fail("expected ',' or '}'")
    }
  }

  array(depth: number): Json[] {
    const out: Json[] = []
    this.pos++
    this.skipSpace()
    if (this.text[this.pos] === ']') {
      this.pos++
      return out
    }
    for (;;) {
      out.push(this.value(depth + 1))
      this.skipSpace()
      const c = this.text[this.pos++]
      if (c === ']') return out
      if (c !== ',') this.fail("expected ',' or ']'")
    }
  }

  string(): string {
    const t = this.text
    const start = this.pos
    let end = start + 1
    let escaped = false
    while (end < t.length) {
      const c = t.charCodeAt(end)
      if (c === 0x22) break
      if (c < 0x20) {
        this.pos = end
        this.fail('control character in string')
      }
      if (c === 0x5c) {
        escaped = true
        end++
      }
      end++
    }
    if (end >= t.length) this.fail('unterminated string')
    this.pos = end + 1
    if (!escaped) return t.slice(start + 1, end)
    try {
      return JSON.parse(t.slice(start, end + 1)) as string
    } catch {
      this.pos = start
      return this.fail('malformed string escape')
    }
  }

  number(): number | bigint {
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 400))
    if (m === null) this.fail('malformed number')
    this.pos += m[0].length
    const isInteger = m[1] === undefined && m[2] === undefined
    const n = Number(m[0])
    if (isInteger && !Number.isSafeInteger(n)) return BigInt(m[0])
    return n
  }
}

/** Parses JSON text; integers outside ±(2^53-1) become bigint. Throws CORRUPT_MESSAGE. */
export function parseJson(text: string): Json {
  const p = new Parser(text)
  const v = p.value(0)
  p.skipSpace()
  if (p.pos !== text.length) p.fail('trailing characters')
  return v
}

/** JSON text of `value`; bigints are written as integer literals, undefined members are omitted. */
export function stringifyJson(value: unknown, indent = 0): string {
  const marks = new Map<string, string>()
  const text = JSON.stringify(
    value,
    (_key, v) => {
      if (typeof v !== 'bigint') return v
      const mark = `\u0000big${marks.size}\u0000`
      marks.set(mark, v.toString())
      return mark
    },
    indent,
  )
  if (marks.size === 0) return text
  return text.replace(/"\\u0000big\d+\\u0000"/g, quoted => {
    const digits = marks.get(JSON.parse(quoted) as string)
    if (digits === undefined) throw new Error(`unmatched bigint marker ${quoted}`)
    return digits
  })
}

export function isJsonObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
