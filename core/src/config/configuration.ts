import { FlussError } from '../errors/index.js'
import type { ConfigOption, RawValue } from './option.js'
import { classifyKey, FLUSS_KEYS_REFUSED, isSecretKey, optionByKey } from './options.js'
import { unknownKeyMessage } from './unknown-key.js'

export interface LoadOptions {
  /** Where the values came from ('FLUSS_CONF', a file path); prefixed to error messages. */
  readonly source?: string
}

/**
 * A set of option values. Values are kept as given (strings from files and table properties, JSON
 * values from FLUSS_CONF) and parsed by the option that reads them: `get(TABLE_LOG_TTL)` is a number
 * of milliseconds. `Configuration.load` parses every known key up front, so a bad value fails at
 * startup rather than at first use.
 */
export class Configuration {
  readonly #raw: Map<string, RawValue>
  readonly #parsed = new Map<string, unknown>()
  /** Keys that were ignored at load, with the reason. */
  readonly warnings: readonly string[]

  constructor(values: Readonly<Record<string, RawValue | undefined>> = {}, warnings: readonly string[] = []) {
    this.#raw = new Map()
    for (const [k, v] of Object.entries(values)) if (v !== undefined) this.#raw.set(k, v)
    this.warnings = warnings
  }

  /**
   * Validates every value eagerly. Registered keys are parsed; unregistered keys with a Sluice prefix
   * (`table.`, `log.`, `client.`, ...) are rejected as typos; Fluss keys Sluice does not use and
   * foreign keys are dropped with a warning; lake catalog keys pass through unparsed.
   */
  static load(values: Readonly<Record<string, unknown>>, options: LoadOptions = {}): Configuration {
    const kept: Record<string, RawValue> = {}
    const warnings: string[] = []
    const where = options.source === undefined ? '' : `${options.source}: `
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) continue
      const raw = checkRawValue(key, value, where)
      const kind = classifyKey(key)
      if (kind === 'registered') {
        withSource(where, () => {
          const opt = optionByKey(key)
          opt?.checkSupported(opt.parse(raw))
        })
        kept[key] = raw
      } else if (kind === 'passthrough') {
        kept[key] = raw
      } else if (kind === 'not-used') {
        warnings.push(`${where}'${key}' is a Fluss option that Sluice does not use; ignored.`)
      } else if (kind === 'refused') {
        throw new FlussError('INVALID_CONFIG_EXCEPTION', `${where}${FLUSS_KEYS_REFUSED.get(key)}`)
      } else if (kind === 'foreign') {
        warnings.push(`${where}unknown configuration key '${key}' ignored.`)
      } else {
        throw new FlussError('INVALID_CONFIG_EXCEPTION', `${where}${unknownKeyMessage(key)}`)
      }
    }
    return new Configuration(kept, warnings)
  }

  /** The value of `opt`: parsed from the value set here, else its default; throws if neither exists. */
  get<T>(opt: ConfigOption<T>): T {
    const v = this.getOptional(opt)
    if (v !== undefined) return v
    throw new FlussError('INVALID_CONFIG_EXCEPTION', `Missing required configuration '${opt.key}'.`)
  }

  /** The value of `opt`, its default, or undefined when it has neither. */
  getOptional<T>(opt: ConfigOption<T>): T | undefined {
    const key = this.#presentKey(opt)
    if (key === undefined) return opt.defaultValue
    if (!this.#parsed.has(key)) this.#parsed.set(key, opt.parse(this.#raw.get(key)))
    return this.#parsed.get(key) as T
  }

  /** Whether a value (not a default) is set for the option or key. */
  has(opt: ConfigOption<unknown> | string): boolean {
    return typeof opt === 'string' ? this.#raw.has(opt) : this.#presentKey(opt) !== undefined
  }

  /** Sets a value, given parsed (500 for 500 ms) or in the option's notation ('500ms'). Validates it. */
  set<T>(opt: ConfigOption<T>, value: T | RawValue): this {
    const parsed = opt.parse(value)
    for (const k of opt.fallbackKeys) this.#raw.delete(k)
    this.#raw.set(opt.key, value as RawValue)
    this.#parsed.set(opt.key, parsed)
    return this
  }

  /** A copy with `overrides` applied on top (later sources win). */
  with(overrides: Configuration | Readonly<Record<string, RawValue | undefined>>): Configuration {
    const extra = overrides instanceof Configuration ? overrides.rawValues() : overrides
    const extraWarnings = overrides instanceof Configuration ? overrides.warnings : []
    const base = this.rawValues()
    for (const [key, value] of Object.entries(extra)) {
      if (value === undefined) continue
      // An override under a fallback key must also replace a value under the main key, and vice versa.
      const opt = optionByKey(key)
      for (const k of opt === undefined ? [key] : [opt.key, ...opt.fallbackKeys]) delete base[k]
      base[key] = value
    }
    return new Configuration(base, [...this.warnings, ...extraWarnings])
  }

  /** Keys with a value set, in insertion order. */
  keys(): string[] {
    return [...this.#raw.keys()]
  }

  /** The values as given, unparsed. */
  rawValues(): Record<string, RawValue> {
    return Object.fromEntries(this.#raw)
  }

  /**
   * The values as strings, the way Fluss stores properties: strings stay as given, other values are
   * formatted by their option ('500ms', '16mb', 'a,b'). `redactSecrets` replaces passwords and tokens.
   */
  toRecord(options: { redactSecrets?: boolean } = {}): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [key, raw] of this.#raw) {
      const opt = optionByKey(key)
      if (options.redactSecrets && isSecretKey(key)) out[key] = '******'
      else if (typeof raw === 'string' || opt === undefined) out[key] = String(raw)
      else out[key] = opt.format(opt.parse(raw))
    }
    return out
  }

  /** Passed-through keys under `prefix`, with the prefix removed (`datalake.iceberg.` → catalog options). */
  withPrefix(prefix: string): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [key, raw] of this.#raw)
      if (key.startsWith(prefix)) out[key.slice(prefix.length)] = String(raw)
    return out
  }

  #presentKey(opt: ConfigOption<unknown>): string | undefined {
    if (this.#raw.has(opt.key)) return opt.key
    return opt.fallbackKeys.find(k => this.#raw.has(k))
  }
}

function checkRawValue(key: string, value: unknown, where: string): RawValue {
  const ok =
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    (Array.isArray(value) && value.every(v => typeof v === 'string'))
  if (ok) return value as RawValue
  throw new FlussError(
    'INVALID_CONFIG_EXCEPTION',
    `${where}Invalid value ${JSON.stringify(value)} for '${key}': expected a string, number, boolean or list of strings.`,
  )
}

function withSource(where: string, parse: () => unknown): void {
  try {
    parse()
  } catch (e) {
    if (where === '' || !(e instanceof FlussError)) throw e
    throw new FlussError(e.errorName, `${where}${e.message}`, { cause: e })
  }
}
