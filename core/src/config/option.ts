import { FlussError } from '../errors/index.js'
import { formatDuration, formatMemorySize, parseDuration, parseMemorySize } from './units.js'

/**
 * One typed configuration option, keyed by Fluss's own name. Built with `option(key)`:
 *
 *   option('table.datalake.freshness').duration().default('3min').inScope('table').description('...')
 *
 * Durations are held in milliseconds and memory sizes in bytes. Every option that bounds a queue,
 * buffer, batch or wait sets a maximum with `range()`.
 */
export type OptionScope = 'table' | 'server' | 'client' | 'cluster' | 'gateway' | 'local'
export type OptionKind =
  | 'string'
  | 'int'
  | 'long'
  | 'boolean'
  | 'duration'
  | 'memory'
  | 'enum'
  | 'list'
  | 'double'

/** A value as it arrives from a file, the environment or a JSON object, before parsing. */
export type RawValue = string | number | boolean | readonly string[]

const INT_MIN = -(2 ** 31)
const INT_MAX = 2 ** 31 - 1

export interface ConfigOption<T> {
  readonly key: string
  readonly kind: OptionKind
  readonly scope: OptionScope
  readonly defaultValue: T | undefined
  /** Shown in docs instead of the default when the default depends on the machine. */
  readonly defaultText?: string
  readonly descriptionText: string
  readonly min?: number
  readonly max?: number
  /** For enums, the accepted values; for lists of enums, the accepted elements. */
  readonly enumValues?: readonly string[]
  /** Older keys read when this key is unset (Fluss fallback and deprecated keys). */
  readonly fallbackKeys: readonly string[]
  /** Table options that may change with ALTER TABLE. */
  readonly alterable: boolean
  /** Passwords and tokens: never logged or rendered. */
  readonly secret: boolean
  /** For strings: the form a value must have, and how that form is described in errors. */
  readonly pattern?: { readonly regex: RegExp; readonly expected: string }
  /**
   * For a key Sluice registers (it is Fluss's) but does not implement: which values are refused and
   * why. A refused value fails where it is set (CREATE TABLE, ALTER TABLE, server start) rather than
   * being accepted and doing nothing.
   */
  readonly refusal?: OptionRefusal<T>
  /** Parses and validates a raw (string or JSON) value; throws INVALID_CONFIG_EXCEPTION. */
  parse(raw: unknown): T
  /** Throws INVALID_CONFIG_EXCEPTION naming the key when `value` is one Sluice refuses. */
  checkSupported(value: T): void
  /** The value as a string, the way Fluss stores table properties. */
  format(value: T): string
}

export interface OptionRefusal<T> {
  /** What Sluice does not do, e.g. 'Sluice does not compact lake data files'. */
  readonly reason: string
  /** Which set values are refused; the ones that ask for what Sluice does anyway are accepted. */
  refuses(value: T): boolean
  /** The values accepted, for docs and errors ('false', 'unset'). */
  readonly accepted: string
}

/** The builder behind `option(key)`; its instances are the option constants. */
export class OptionBuilder<T> implements ConfigOption<T> {
  kind: OptionKind = 'string'
  scope: OptionScope = 'server'
  defaultValue: T | undefined = undefined
  defaultText?: string
  descriptionText = ''
  min?: number
  max?: number
  enumValues?: readonly string[]
  fallbackKeys: readonly string[] = []
  alterable = false
  secret = false
  pattern?: { readonly regex: RegExp; readonly expected: string }
  refusal?: OptionRefusal<T>

  constructor(readonly key: string) {}

  string(): OptionBuilder<string> {
    return this.as<string>('string')
  }
  /** A 32-bit integer, like Fluss's `intType()`. */
  int(): OptionBuilder<number> {
    return this.as<number>('int')
  }
  /** An integer up to 2^53 - 1 (Fluss's `longType()`; larger Fluss defaults are clamped). */
  long(): OptionBuilder<number> {
    return this.as<number>('long')
  }
  double(): OptionBuilder<number> {
    return this.as<number>('double')
  }
  boolean(): OptionBuilder<boolean> {
    return this.as<boolean>('boolean')
  }
  /** Milliseconds. */
  duration(): OptionBuilder<number> {
    return this.as<number>('duration')
  }
  /** Bytes. */
  memory(): OptionBuilder<number> {
    return this.as<number>('memory')
  }
  /** Comma-separated list of strings. */
  list(): OptionBuilder<string[]> {
    return this.as<string[]>('list')
  }
  /** One of `values`, matched case-insensitively and normalized to the spelling given here. */
  enum<E extends string>(values: readonly E[]): OptionBuilder<E> {
    const b = this.as<E>('enum')
    b.enumValues = values
    return b
  }
  /** Comma-separated list whose elements are each one of `values` (case-insensitive). */
  enumList<E extends string>(values: readonly E[]): OptionBuilder<E[]> {
    const b = this.as<E[]>('list')
    b.enumValues = values
    return b
  }

  /** A default given in the option's own notation ('3min', '16mb', 'zstd') or as a parsed value. */
  default(v: T | string): this {
    this.defaultValue = typeof v === 'string' && this.kind !== 'string' ? this.parse(v) : (v as T)
    return this
  }
  /** A default computed on this machine (time zone, temp dir); docs show `text` instead. */
  machineDefault(v: T, text: string): this {
    this.defaultValue = v
    this.defaultText = text
    return this
  }
  /** Text docs show for the default instead of the value (e.g. 'unbounded'). */
  documentDefaultAs(text: string): this {
    this.defaultText = text
    return this
  }
  noDefault(): this {
    this.defaultValue = undefined
    return this
  }
  inScope(s: OptionScope): this {
    this.scope = s
    return this
  }
  /** Inclusive bounds; for durations in ms, for sizes in bytes (strings are parsed). */
  range(min?: number | string, max?: number | string): this {
    if (min !== undefined) this.min = this.bound(min)
    if (max !== undefined) this.max = this.bound(max)
    return this
  }
  canAlter(): this {
    this.alterable = true
    return this
  }
  isSecret(): this {
    this.secret = true
    return this
  }
  /** Strings must match `regex`; `expected` describes the form in error messages. */
  matching(regex: RegExp, expected: string): this {
    this.pattern = { regex, expected }
    return this
  }
  withFallbackKeys(...keys: string[]): this {
    this.fallbackKeys = keys
    return this
  }
  description(text: string): this {
    this.descriptionText = text
    return this
  }
  /**
   * Marks a Fluss key Sluice does not implement: a set value is refused with `reason` unless it asks
   * for what Sluice does anyway, by default the option's default value (an option without a default
   * refuses every value); `refuses` and `accepted` say otherwise.
   */
  notSupported(reason: string, refuses?: (value: T) => boolean, accepted?: string): this {
    const fallback = this.defaultValue
    this.refusal = {
      reason,
      accepted: accepted ?? (fallback === undefined ? 'none' : `'${this.format(fallback)}' (the default)`),
      refuses: refuses ?? (v => fallback === undefined || this.format(v) !== this.format(fallback)),
    }
    return this
  }

  checkSupported(value: T): void {
    if (this.refusal === undefined || !this.refusal.refuses(value)) return
    const accepted = this.refusal.accepted === 'none' ? '' : ` Accepted: ${this.refusal.accepted}.`
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `'${this.key}' = '${this.format(value)}' is not supported by Sluice: ${this.refusal.reason}.${accepted}`,
    )
  }

  parse(raw: unknown): T {
    const v = this.parseKind(raw)
    if (typeof v === 'number') {
      if (this.min !== undefined && v < this.min) throw this.err(raw, `at least ${this.show(this.min)}`)
      if (this.max !== undefined && v > this.max) throw this.err(raw, `at most ${this.show(this.max)}`)
    }
    return v as T
  }

  format(value: T): string {
    switch (this.kind) {
      case 'duration':
        return formatDuration(value as number).replace(' ', '')
      case 'memory':
        return formatMemorySize(value as number).replace(' ', '')
      case 'list':
        return (value as string[]).join(',')
      default:
        return String(value)
    }
  }

  private parseKind(raw: unknown): unknown {
    switch (this.kind) {
      case 'string': {
        // JSON numbers and booleans are accepted as their text, as Fluss does for string options.
        const s = typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : raw
        if (typeof s !== 'string') throw this.err(raw, this.pattern?.expected ?? 'a string')
        if (this.pattern && !this.pattern.regex.test(s)) throw this.err(raw, this.pattern.expected)
        return s
      }
      case 'int':
        return this.parseInteger(raw, INT_MIN, INT_MAX)
      case 'long':
        return this.parseInteger(raw, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
      case 'double': {
        const n =
          typeof raw === 'number'
            ? raw
            : typeof raw === 'string' && raw.trim() !== ''
              ? Number(raw)
              : Number.NaN
        if (!Number.isFinite(n)) throw this.err(raw, 'a number')
        return n
      }
      case 'boolean':
        if (typeof raw === 'boolean') return raw
        if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim()))
          return raw.trim().toLowerCase() === 'true'
        throw this.err(raw, "'true' or 'false'")
      case 'duration':
        if (typeof raw !== 'string' && typeof raw !== 'number') throw this.err(raw, 'a duration')
        return parseDuration(raw, this.key)
      case 'memory':
        if (typeof raw !== 'string' && typeof raw !== 'number') throw this.err(raw, 'a memory size')
        return parseMemorySize(raw, this.key)
      case 'list':
        return this.parseList(raw)
      case 'enum': {
        const s = typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : raw
        if (typeof s !== 'string') throw this.err(raw, `one of ${this.enumValues?.join(', ')}`)
        return this.enumValue(s, raw)
      }
    }
  }

  private parseInteger(raw: unknown, lo: number, hi: number): number {
    const n =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'string' && /^\s*[-+]?\d+\s*$/.test(raw)
          ? Number(raw)
          : Number.NaN
    if (!Number.isSafeInteger(n)) throw this.err(raw, 'an integer')
    if (n < lo || n > hi) throw this.err(raw, `an integer between ${lo} and ${hi}`)
    return n
  }

  private parseList(raw: unknown): string[] {
    let items: string[]
    if (Array.isArray(raw) && raw.every(x => typeof x === 'string')) items = raw.map(s => s.trim())
    else if (typeof raw === 'string') items = raw.split(',').map(s => s.trim())
    else throw this.err(raw, 'a comma-separated list')
    items = items.filter(s => s !== '')
    return this.enumValues === undefined ? items : items.map(s => this.enumValue(s, raw))
  }

  private enumValue(s: string, whole: unknown = s): string {
    const hit = this.enumValues?.find(e => e.toLowerCase() === s.trim().toLowerCase())
    if (hit === undefined) throw this.err(whole, `one of ${this.enumValues?.join(', ')}`)
    return hit
  }

  private as<U>(kind: OptionKind): OptionBuilder<U> {
    const b = this as unknown as OptionBuilder<U>
    b.kind = kind
    return b
  }

  private bound(v: number | string): number {
    if (typeof v === 'number') return v
    return this.kind === 'memory' ? parseMemorySize(v, this.key) : parseDuration(v, this.key)
  }

  private show(n: number): string {
    if (this.kind === 'duration') return formatDuration(n)
    if (this.kind === 'memory') return formatMemorySize(n)
    return String(n)
  }

  private err(raw: unknown, expected: string): FlussError {
    const shown = this.secret ? '******' : typeof raw === 'string' ? raw : JSON.stringify(raw)
    return new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `Invalid value '${shown}' for '${this.key}': expected ${expected}.`,
    )
  }
}

export function option(key: string): OptionBuilder<string> {
  return new OptionBuilder<string>(key)
}
