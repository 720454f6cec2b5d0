import { FlussError } from '../errors/index.js'
import { formatDuration, formatMemorySize, parseDuration, parseMemorySize } from './units.js'

/**
 * One typed configuration option, keyed by Fluss's own name. Built with `option(key)`:
 *
 *   option('table.datalake.freshness').duration().default('3min').scope('table').description('...')
 *
 * Durations are held in milliseconds and memory sizes in bytes. Every option that bounds a queue,
 * buffer, batch or wait sets `max`.
 */
export type OptionScope = 'table' | 'server' | 'client' | 'cluster' | 'gateway' | 'local'
export type OptionKind = 'string' | 'int' | 'boolean' | 'duration' | 'memory' | 'enum' | 'list' | 'double'

export interface ConfigOption<T> {
  readonly key: string
  readonly kind: OptionKind
  readonly scope: OptionScope
  readonly defaultValue: T | undefined
  readonly descriptionText: string
  readonly min?: number
  readonly max?: number
  readonly enumValues?: readonly string[]
  /** Table options that may change with ALTER TABLE. */
  readonly alterable: boolean
  /** Parses and validates a raw (string or JSON) value; throws INVALID_CONFIG_EXCEPTION. */
  parse(raw: unknown): T
  /** The value as a string, the way Fluss stores table properties. */
  format(value: T): string
}

class Builder<T> implements ConfigOption<T> {
  kind: OptionKind = 'string'
  scope: OptionScope = 'server'
  defaultValue: T | undefined = undefined
  descriptionText = ''
  min?: number
  max?: number
  enumValues?: readonly string[]
  alterable = false

  constructor(readonly key: string) {}

  string(): Builder<string> {
    return this.as<string>('string')
  }
  int(): Builder<number> {
    return this.as<number>('int')
  }
  double(): Builder<number> {
    return this.as<number>('double')
  }
  boolean(): Builder<boolean> {
    return this.as<boolean>('boolean')
  }
  /** Milliseconds. */
  duration(): Builder<number> {
    return this.as<number>('duration')
  }
  /** Bytes. */
  memory(): Builder<number> {
    return this.as<number>('memory')
  }
  /** Comma-separated list of strings. */
  list(): Builder<string[]> {
    return this.as<string[]>('list')
  }
  /** One of `values`, matched case-insensitively and normalized to the spelling given here. */
  enum<E extends string>(values: readonly E[]): Builder<E> {
    const b = this.as<E>('enum')
    b.enumValues = values
    return b
  }

  /** A default given in the option's own notation ('3min', '16mb', 'ZSTD') or as a parsed value. */
  default(v: T | string): this {
    this.defaultValue = typeof v === 'string' && this.kind !== 'string' && this.kind !== 'enum' ? this.parse(v) : (v as T)
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
  description(text: string): this {
    this.descriptionText = text
    return this
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
      case 'string':
        if (typeof raw !== 'string') throw this.err(raw, 'a string')
        return raw
      case 'int': {
        const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN
        if (!Number.isSafeInteger(n)) throw this.err(raw, 'an integer')
        return n
      }
      case 'double': {
        const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN
        if (!Number.isFinite(n)) throw this.err(raw, 'a number')
        return n
      }
      case 'boolean':
        if (typeof raw === 'boolean') return raw
        if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) return raw.trim().toLowerCase() === 'true'
        throw this.err(raw, "'true' or 'false'")
      case 'duration':
        if (typeof raw !== 'string' && typeof raw !== 'number') throw this.err(raw, 'a duration')
        return parseDuration(raw, this.key)
      case 'memory':
        if (typeof raw !== 'string' && typeof raw !== 'number') throw this.err(raw, 'a memory size')
        return parseMemorySize(raw, this.key)
      case 'list':
        if (Array.isArray(raw) && raw.every(x => typeof x === 'string')) return raw
        if (typeof raw !== 'string') throw this.err(raw, 'a comma-separated list')
        return raw
          .split(',')
          .map(s => s.trim())
          .filter(s => s !== '')
      case 'enum': {
        const s = typeof raw === 'string' ? raw.trim() : ''
        const hit = this.enumValues?.find(e => e.toLowerCase() === s.toLowerCase())
        if (hit === undefined) throw this.err(raw, `one of ${this.enumValues?.join(', ')}`)
        return hit
      }
    }
  }

  private as<U>(kind: OptionKind): Builder<U> {
    const b = this as unknown as Builder<U>
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
    const shown = typeof raw === 'string' ? raw : JSON.stringify(raw)
    return new FlussError('INVALID_CONFIG_EXCEPTION', `Invalid value '${shown}' for '${this.key}': expected ${expected}.`)
  }
}

export function option(key: string): Builder<string> {
  return new Builder<string>(key)
}
