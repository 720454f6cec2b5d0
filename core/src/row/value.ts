/**
 * In-memory values of Fluss types. A row is an array of values in column order.
 *
 * | Fluss type                    | JS value                                   |
 * |-------------------------------|--------------------------------------------|
 * | BOOLEAN                       | boolean                                    |
 * | TINYINT, SMALLINT, INT        | number (integer in range)                  |
 * | BIGINT                        | bigint                                     |
 * | FLOAT, DOUBLE                 | number                                     |
 * | DECIMAL(p, s)                 | Decimal (unscaled bigint + scale)          |
 * | CHAR, STRING                  | string                                     |
 * | BINARY, BYTES                 | Uint8Array                                 |
 * | DATE                          | number: days since 1970-01-01              |
 * | TIME(p)                       | number: milliseconds of the day            |
 * | TIMESTAMP(p), TIMESTAMP_LTZ(p)| Timestamp (epoch millis + nano of milli)   |
 * | ARRAY<T>                      | Value[] (elements may be null)             |
 * | MAP<K, V>                     | Map<Value, Value> (keys are never null)    |
 * | ROW<f1 T1, ...>               | Value[]: the field values in field order   |
 * | NULL                          | null                                       |
 *
 * Nested values nest freely (`ARRAY<MAP<STRING, ROW<v ARRAY<FLOAT>>>>` is `Map<string, [number[]]>[]`).
 * MAP keys follow JS `Map` semantics (SameValueZero): primitive keys (string, number, bigint,
 * boolean) are found by value, object keys (Decimal, Timestamp, Uint8Array, arrays, Maps) only by
 * identity, so a decoded map with such keys is read by iterating it. Entries keep their order
 * through every encoding; decoding bytes that repeat a key keeps the last value.
 */

export class Decimal {
  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
  ) {}

  /** Parses `"-123.45"` at the given scale; throws RangeError when digits would be lost. */
  static parse(text: string, scale: number): Decimal {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim())
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new RangeError(`not a decimal number: '${text}'`)
    const intPart = m[2] || '0'
    let frac = m[3] ?? ''
    if (frac.length > scale) {
      if (/[^0]/.test(frac.slice(scale)))
        throw new RangeError(`'${text}' has more than ${scale} fraction digits`)
      frac = frac.slice(0, scale)
    }
    frac = frac.padEnd(scale, '0')
    const unscaled = BigInt(intPart + frac)
    return new Decimal(m[1] === '-' ? -unscaled : unscaled, scale)
  }

  static fromNumber(n: number, scale: number): Decimal {
    if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`)
    return Decimal.parse(n.toFixed(scale), scale)
  }

  /** Number of decimal digits of the unscaled value (the precision it needs). */
  digits(): number {
    const a = this.unscaled < 0n ? -this.unscaled : this.unscaled
    return a === 0n ? 1 : a.toString().length
  }

  toString(): string {
    const neg = this.unscaled < 0n
    const digits = (neg ? -this.unscaled : this.unscaled).toString().padStart(this.scale + 1, '0')
    const head = digits.slice(0, digits.length - this.scale)
    const tail = digits.slice(digits.length - this.scale)
    return `${neg ? '-' : ''}${head}${this.scale > 0 ? `.${tail}` : ''}`
  }

  equals(o: Decimal): boolean {
    return this.unscaled === o.unscaled && this.scale === o.scale
  }

  toJSON(): string {
    return this.toString()
  }
}

/** Fluss's TimestampNtz / TimestampLtz: milliseconds since the epoch plus nanoseconds within that millisecond. */
export class Timestamp {
  constructor(
    readonly millis: number,
    readonly nanoOfMillis = 0,
  ) {}

  static fromMicros(micros: bigint): Timestamp {
    const millis = micros / 1000n
    let rem = micros % 1000n
    let ms = millis
    if (rem < 0n) {
      rem += 1000n
      ms -= 1n
    }
    return new Timestamp(Number(ms), Number(rem) * 1000)
  }

  static fromNanos(nanos: bigint): Timestamp {
    let ms = nanos / 1_000_000n
    let rem = nanos % 1_000_000n
    if (rem < 0n) {
      rem += 1_000_000n
      ms -= 1n
    }
    return new Timestamp(Number(ms), Number(rem))
  }

  static fromDate(d: Date): Timestamp {
    return new Timestamp(d.getTime(), 0)
  }

  toMicros(): bigint {
    return BigInt(this.millis) * 1000n + BigInt(Math.floor(this.nanoOfMillis / 1000))
  }

  toNanos(): bigint {
    return BigInt(this.millis) * 1_000_000n + BigInt(this.nanoOfMillis)
  }

  equals(o: Timestamp): boolean {
    return this.millis === o.millis && this.nanoOfMillis === o.nanoOfMillis
  }

  compare(o: Timestamp): number {
    return this.millis !== o.millis ? this.millis - o.millis : this.nanoOfMillis - o.nanoOfMillis
  }

  /** ISO-8601 in UTC with as many fraction digits as needed (up to nanoseconds). */
  toISOString(): string {
    const base = new Date(this.millis).toISOString() // ...sss Z
    if (this.nanoOfMillis === 0) return base
    const frac = String(this.nanoOfMillis).padStart(6, '0').replace(/0+$/, '')
    return `${base.slice(0, -1)}${frac}Z`
  }

  toJSON(): string {
    return this.toISOString()
  }
}

export type Value =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | Decimal
  | Timestamp
  | Value[]
  | Map<Value, Value>

export type Row = Value[]
