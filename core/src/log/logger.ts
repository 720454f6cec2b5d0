import { FlussError } from '../errors/index.js'

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'off'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
type WrittenLevel = Exclude<LogLevel, 'off'>

const RANK: Record<LogLevel, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, off: 5 }

/** Fields of a line: `table`, `bucket`, `epoch`, `requestId`, `error`, ... */
export type LogFields = Readonly<Record<string, unknown>>

/**
 * Where components write what they do (every method takes a message and fields). Structurally the
 * components' own logger interfaces (RpcLogger, CoordinatorLogger, ...) are subsets of this one.
 */
export interface Logger {
  trace(message: string, fields?: LogFields): void
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
  /** A logger of `component` (its own level applies), or with `fields` on every line. */
  child(bindings: { readonly component?: string } & LogFields): Logger
}

/** `log.level`: a default level and levels per component. */
export interface LogLevels {
  readonly defaultLevel: LogLevel
  readonly byComponent: ReadonlyMap<string, LogLevel>
}

/** Parses `'info'` or `'warn,replica=debug,rpc=error'`. */
export function parseLogLevels(spec: string): LogLevels {
  const [first = '', ...rest] = spec.split(',').map(s => s.trim().toLowerCase())
  const byComponent = new Map<string, LogLevel>()
  for (const pair of rest) {
    const [component = '', level = ''] = pair.split('=')
    byComponent.set(component, checkLevel(level, spec))
  }
  return { defaultLevel: checkLevel(first, spec), byComponent }
}

function checkLevel(level: string, spec: string): LogLevel {
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel
  throw new FlussError(
    'INVALID_CONFIG_EXCEPTION',
    `log.level '${spec}': '${level}' is not one of ${LOG_LEVELS.join(', ')}`,
  )
}

/** One line as written. */
export interface LogRecord {
  readonly time: string
  readonly level: WrittenLevel
  readonly component: string
  readonly message: string
  readonly [field: string]: unknown
}

export interface LoggerOptions {
  readonly component: string
  readonly levels?: LogLevels
  readonly format?: 'json' | 'text'
  /** Receives each formatted line (default: stdout for trace..info, stderr for warn and error). */
  readonly write?: (line: string, level: WrittenLevel) => void
  readonly nowMs?: () => number
}

const DEFAULT_LEVELS: LogLevels = { defaultLevel: 'info', byComponent: new Map() }

function defaultWrite(line: string, level: WrittenLevel): void {
  if (RANK[level] >= RANK.warn) process.stderr.write(`${line}\n`)
  else process.stdout.write(`${line}\n`)
}

/** A logger writing JSON lines (or text for people) at the levels of `log.level`. */
export function createLogger(options: LoggerOptions): Logger {
  return new LineLogger(options, options.component, {})
}

class LineLogger implements Logger {
  readonly #threshold: number
  constructor(
    private readonly options: LoggerOptions,
    private readonly component: string,
    private readonly bound: LogFields,
  ) {
    const levels = options.levels ?? DEFAULT_LEVELS
    this.#threshold = RANK[levels.byComponent.get(component) ?? levels.defaultLevel]
  }
  trace(message: string, fields?: LogFields): void {
    this.#log('trace', message, fields)
  }
  debug(message: string, fields?: LogFields): void {
    this.#log('debug', message, fields)
  }
  info(message: string, fields?: LogFields): void {
    this.#log('info', message, fields)
  }
  warn(message: string, fields?: LogFields): void {
    this.#log('warn', message, fields)
  }
  error(message: string, fields?: LogFields): void {
    this.#log('error', message, fields)
  }
  child(bindings: { readonly component?: string } & LogFields): Logger {
    const { component, ...fields } = bindings
    return new LineLogger(this.options, component ?? this.component, { ...this.bound, ...fields })
  }
  #log(level: WrittenLevel, message: string, fields: LogFields | undefined): void {
    if (RANK[level] < this.#threshold) return
    const record: LogRecord = {
      time: new Date((this.options.nowMs ?? Date.now)()).toISOString(),
      level,
      component: this.component,
      message,
      ...plainFields(this.bound),
      ...plainFields(fields),
    }
    const line = this.options.format === 'text' ? formatLogRecord(record) : JSON.stringify(record)
    ;(this.options.write ?? defaultWrite)(line, level)
  }
}

/** Errors become their message (stack for unexpected ones); bigints their decimal text. */
function plainFields(fields: LogFields | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (fields === undefined) return out
  for (const [k, v] of Object.entries(fields)) {
    if (v instanceof FlussError) out[k] = `${v.errorName}: ${v.message}`
    else if (v instanceof Error) out[k] = v.stack ?? v.message
    else if (typeof v === 'bigint') out[k] = v.toString()
    else if (v !== undefined) out[k] = v
  }
  return out
}

/** `08:11:05.123 WARN  [replica] message table=db.t bucket=0`: a record for a person. */
export function formatLogRecord(record: LogRecord): string {
  const { time, level, component, message, ...fields } = record
  const extra = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ')
  const clock = time.length >= 23 ? time.slice(11, 23) : time
  return `${clock} ${level.toUpperCase().padEnd(5)} [${component}] ${message}${extra ? ` ${extra}` : ''}`
}

/** A JSON log line in a human format; other lines are returned as they are. */
export function humanLogLine(line: string): string {
  if (!line.startsWith('{')) return line
  try {
    const r = JSON.parse(line) as Partial<LogRecord>
    if (typeof r.level !== 'string' || typeof r.message !== 'string') return line
    return formatLogRecord({ time: '', component: '-', ...r } as LogRecord)
  } catch {
    return line
  }
}

/** A logger that writes nothing. */
export const SILENT: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => SILENT,
}
