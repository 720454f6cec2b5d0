import { type DataType, isNested, type RowType } from '@sluice/core'

/** Deterministic PRNG (mulberry32), so a failing body reproduces from its seed. */
export class Prng {
  #a: number

  constructor(seed: number) {
    this.#a = seed | 0
  }

  next(): number {
    this.#a = (this.#a + 0x6d2b79f5) | 0
    let t = Math.imul(this.#a ^ (this.#a >>> 15), 1 | this.#a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]
  }
}

const SPACES = [' ', '\n', '\t', '\r', '  ', ' \n  ']
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
}
/** Characters strings are drawn from: ASCII, controls, Latin-1, BMP, an astral pair, lone surrogates. */
const CHARS = [
  'a',
  'Z',
  '0',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\u0001',
  '\u007f',
  'é',
  'ß',
  '€',
  '中',
  '😀',
  '\ud800',
  '\udfff',
]

/**
 * Random JSON text of write request bodies for one row type: mostly valid values of each column's
 * type in varied spellings (whitespace, key order, escapes, number forms), some wrong ones.
 */
export class RandomJsonBodies {
  constructor(
    readonly rowType: RowType,
    private readonly rnd: Prng,
  ) {}

  /** A body `{"<member>": [rows]}`; `wrong` is the share of values that are likely invalid. */
  body(member: string, rows: number, wrong = 0.02): string {
    const items = Array.from({ length: rows }, () => this.row(wrong))
    const ws = () => this.space()
    const bom = this.rnd.chance(0.03) ? '\ufeff' : ''
    const list = `[${ws()}${items.join(`${ws()},${ws()}`)}${ws()}]`
    return `${bom}${ws()}{${ws()}${this.text(member, 0.01)}${ws()}:${ws()}${list}${ws()}}${ws()}`
  }

  row(wrong: number): string {
    const fields = this.rowType.fields.filter(f => {
      if (!f.type.nullable) return true
      return !this.rnd.chance(isNested(f.type) ? 0.97 : 0.15)
    })
    if (this.rnd.chance(0.1)) fields.sort(() => this.rnd.next() - 0.5)
    const members = fields.map(f => {
      const value = this.rnd.chance(wrong) ? this.wrongValue() : this.value(f.type, wrong)
      return `${this.text(f.name, 0.02)}${this.space()}:${this.space()}${value}`
    })
    if (this.rnd.chance(wrong)) members.push(`${this.text(this.rnd.pick(['nope', 'id', 'ünï']), 0)}:1`)
    return `{${this.space()}${members.join(`${this.space()},${this.space()}`)}${this.space()}}`
  }

  space(): string {
    return this.rnd.chance(0.8) ? '' : this.rnd.pick(SPACES)
  }

  /** A JSON string of `s`, each character escaped as \uXXXX with probability `escapeShare`. */
  text(s: string, escapeShare = 0.05): string {
    let out = '"'
    for (const ch of s.split('')) {
      const code = ch.charCodeAt(0)
      if (this.rnd.chance(escapeShare)) out += `\\u${code.toString(16).padStart(4, '0')}`
      else if (SHORT_ESCAPES[ch] !== undefined) out += SHORT_ESCAPES[ch]
      else if (code < 0x20) out += `\\u00${code.toString(16).padStart(2, '0')}`
      else if (code >= 0xd800 && code <= 0xdfff && !this.rnd.chance(0.3)) out += `\\u${code.toString(16)}`
      else out += ch
    }
    return `${out}"`
  }

  randomString(max: number): string {
    const n = this.rnd.int(max + 1)
    let s = ''
    for (let i = 0; i < n; i++)
      s += this.rnd.chance(0.7) ? 'lorem ipsum'[this.rnd.int(11)] : this.rnd.pick(CHARS)
    return s
  }

  wrongValue(): string {
    const raw = ['"x"', '1.5', '-1', 'true', 'null', '[]', '{}', '[1,[2]]', '{"a":{}}', '"\u0001"', '1e400']
    return this.rnd.pick([...raw, '123456789012345678901', '"\\ud800"', '-0', '0.1e-2'])
  }

  /** A value of `type`; with probability `odd` one the column likely refuses. */
  value(type: DataType, odd = 0.01): string {
    if (type.nullable && this.rnd.chance(0.05)) return 'null'
    const r = this.rnd
    const wrong = r.chance(odd)
    switch (type.type) {
      case 'BOOLEAN':
        return wrong ? '1' : r.pick(['true', 'false'])
      case 'TINYINT':
        return this.integer(wrong ? 200 : 127)
      case 'SMALLINT':
        return this.integer(wrong ? 40_000 : 32_767)
      case 'INTEGER':
        return this.integer(wrong ? 2 ** 32 : 2 ** 31 - 1)
      case 'BIGINT':
        if (r.chance(0.5)) return this.integer(wrong ? 2 ** 60 : 2 ** 53 - 1)
        return `"${r.pick(['', '-'])}${this.digits(1 + r.int(wrong ? 21 : 18))}"`
      case 'FLOAT':
      case 'DOUBLE':
        return this.floating(wrong)
      case 'DECIMAL': {
        const whole = this.digits(1 + r.int(type.precision - type.scale + (wrong ? 2 : 0))).replace(
          /^0+(?=\d)/,
          '',
        )
        const fraction = this.digits(r.int(type.scale + (wrong ? 3 : 1)))
        const text = `${r.pick(['', '-'])}${whole}${fraction === '' ? '' : `.${fraction}`}`
        return r.chance(0.8) || text.length > 16 ? `"${text}"` : text
      }
      case 'CHAR':
        return this.text(this.randomString(type.length + (wrong ? 1 : 0)))
      case 'STRING':
        return this.text(this.randomString(40))
      case 'BINARY':
      case 'BYTES': {
        const n = type.type === 'BINARY' ? type.length + (wrong ? 1 : 0) : r.int(8)
        const bytes = Buffer.from(Array.from({ length: n }, () => r.int(256)))
        return this.text(wrong && r.chance(0.5) ? '!!' : bytes.toString('base64'), 0.02)
      }
      case 'DATE':
        return this.text(
          `${this.year()}-${this.two(wrong ? 14 : 12, 1)}-${this.two(wrong ? 32 : 28, 1)}`,
          0.02,
        )
      case 'TIME_WITHOUT_TIME_ZONE':
        return this.text(`${this.time(wrong)}${this.fraction(wrong ? 9 : Math.min(3, type.precision))}`, 0.02)
      case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
        return this.timestamp(type.type === 'TIMESTAMP_WITH_LOCAL_TIME_ZONE', type.precision, wrong)
      case 'ARRAY':
        return `[${Array.from({ length: r.int(3) }, () => this.value(type.elementType, odd)).join(',')}]`
      case 'MAP':
        return `{${Array.from({ length: r.int(3) }, (_, i) => `"k${i}":${this.value(type.valueType, odd)}`).join(',')}}`
      case 'ROW':
        return `{${type.fields.map(f => `${this.text(f.name)}:${this.value(f.type, odd)}`).join(',')}}`
    }
  }

  /** An integer literal within ±`limit`, in varied spellings (`-0`, exponents, `.0`). */
  integer(limit: number): string {
    const n = Math.floor((this.rnd.next() * 2 - 1) * limit)
    const form = this.rnd.int(12)
    if (form === 0) return this.rnd.pick(['-0', '0', '1E2', '1e+2', '100.0', '2e-0', '-5E0'])
    if (form === 1) return `${n}.0`
    return String(n)
  }

  floating(odd: boolean): string {
    const r = this.rnd
    if (odd) return r.pick(['1e400', '"nan"', '"1.5"', '-1e999', '123456789.123456789123', '[]'])
    // Mostly literals a double holds exactly; a few with 16 or 17 digits (kept exact by the general path).
    if (r.chance(0.05)) return String((r.next() - 0.5) * 10 ** r.int(12))
    const forms = [
      () => String((r.int(2_000_000) - 1_000_000) / 10 ** r.int(9)),
      () => String(r.int(1000) / 8),
      () => `${r.int(10)}.${this.digits(1 + r.int(14))}`,
      () => `${r.int(10)}e${r.pick(['', '+', '-'])}${r.int(38)}`,
      () => r.pick(['"NaN"', '"Infinity"', '"-Infinity"', '5e-324', '1e-50', '-0.0', '0']),
    ]
    return r.pick(forms)()
  }

  time(odd: boolean): string {
    return `${this.two(odd ? 25 : 24)}:${this.two(odd ? 61 : 60)}:${this.two(odd ? 61 : 60)}`
  }

  timestamp(zoned: boolean, precision: number, odd: boolean): string {
    const r = this.rnd
    if (r.chance(0.15)) return r.chance(0.5) ? String(r.int(2 ** 40)) : `"${r.int(2 ** 52)}"`
    const zone = zoned !== odd ? r.pick(['Z', '+01:00', '-05:30', '+14:00', '-00:00']) : ''
    const date = `${this.year()}-${this.two(12, 1)}-${this.two(28, 1)}`
    const fraction = this.fraction(odd ? 10 : precision)
    return this.text(`${date}${r.pick(['T', ' '])}${this.time(false)}${fraction}${zone}`, 0.02)
  }

  year(): string {
    return this.rnd.chance(0.9)
      ? String(1000 + this.rnd.int(9000))
      : this.rnd.pick(['0000', '+010000', '-000001'])
  }

  /** Two digits of a number in [from, from + count). */
  two(count: number, from = 0): string {
    return String(from + this.rnd.int(count)).padStart(2, '0')
  }

  /** `.` and 1 to `maxDigits` digits, or nothing. */
  fraction(maxDigits: number): string {
    return maxDigits === 0 || this.rnd.chance(0.5) ? '' : `.${this.digits(1 + this.rnd.int(maxDigits))}`
  }

  digits(n: number): string {
    let s = ''
    for (let i = 0; i < n; i++) s += String(this.rnd.int(10))
    return s
  }
}

/** The body's bytes changed at random: cut short, a byte dropped, inserted or replaced, a span repeated. */
export function mutateBytes(rnd: Prng, bytes: Uint8Array): Uint8Array {
  const b = Buffer.from(bytes)
  const at = rnd.int(b.length + 1)
  const noise = rnd.pick([
    0x00, 0x09, 0x1f, 0x22, 0x2c, 0x3a, 0x5b, 0x5c, 0x5d, 0x7b, 0x7d, 0x80, 0xc3, 0xed, 0xff, 0x30, 0x2d,
    0x65,
  ])
  switch (rnd.int(5)) {
    case 0:
      return b.subarray(0, at)
    case 1:
      return Buffer.concat([b.subarray(0, at), b.subarray(at + 1)])
    case 2:
      return Buffer.concat([b.subarray(0, at), Buffer.from([noise]), b.subarray(at)])
    case 3:
      if (at < b.length) b[at] = noise
      return b
    default: {
      const end = Math.min(b.length, at + 1 + rnd.int(12))
      return Buffer.concat([b.subarray(0, end), b.subarray(at, end), b.subarray(end)])
    }
  }
}
