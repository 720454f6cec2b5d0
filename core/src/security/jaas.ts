import { FlussError } from '../errors/index.js'

/**
 * JAAS login configuration text, as Fluss reads `security.sasl.plain.jaas.config` and
 * `client.security.sasl.jaas.config` (its JaasConfig, a java.io.StreamTokenizer grammar):
 *
 *   org.apache.fluss.security.auth.sasl.plain.PlainLoginModule required
 *     username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";
 *
 * One or more entries `<login module> <control flag> (<key>=<value>)* ;`. Values are words or
 * quoted strings ("..." or '...', backslash escapes); `//` and `/* *\/` comments are skipped.
 * Error messages never repeat option values (they are passwords).
 */
export interface JaasEntry {
  readonly loginModule: string
  readonly controlFlag: 'required' | 'requisite' | 'sufficient' | 'optional'
  readonly options: ReadonlyMap<string, string>
}

export const PLAIN_LOGIN_MODULE = 'org.apache.fluss.security.auth.sasl.plain.PlainLoginModule'
/** Our module name for SCRAM-SHA-256 credentials (no Fluss counterpart). */
export const SCRAM_LOGIN_MODULE = 'io.sluice.security.ScramLoginModule'

const FLAGS = ['required', 'requisite', 'sufficient', 'optional'] as const

type Token = { kind: 'word' | 'quoted'; text: string } | { kind: 'symbol'; text: string }

function fail(message: string): never {
  throw new FlussError('INVALID_CONFIG_EXCEPTION', `JAAS config: ${message}`)
}

const WORD = /[A-Za-z0-9_$.\-\u0080-\uffff]/

function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (/\s/.test(c)) i++
    else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      if (end < 0) fail('unterminated /* comment')
      i = end + 2
    } else if (c === '"' || c === "'") {
      let out = ''
      i++
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\' && i + 1 < text.length) i++
        out += text[i++]
      }
      if (i >= text.length) fail('unterminated quoted value')
      i++
      tokens.push({ kind: 'quoted', text: out })
    } else if (WORD.test(c)) {
      const start = i
      while (i < text.length && WORD.test(text[i])) i++
      tokens.push({ kind: 'word', text: text.slice(start, i) })
    } else if (c === '=' || c === ';') {
      tokens.push({ kind: 'symbol', text: c })
      i++
    } else fail(`unexpected character '${c}' at position ${i}`)
  }
  return tokens
}

export function parseJaasConfig(text: string): JaasEntry[] {
  const tokens = tokenize(text)
  const entries: JaasEntry[] = []
  let i = 0
  while (i < tokens.length) {
    const module = tokens[i++]
    if (module.kind !== 'word') fail('expected a login module name')
    const flag = tokens[i++]
    if (flag === undefined || flag.kind === 'symbol') fail('login module control flag not specified')
    const controlFlag = flag.text.toLowerCase() as JaasEntry['controlFlag']
    if (!FLAGS.includes(controlFlag)) fail(`invalid login module control flag '${flag.text}'`)
    const options = new Map<string, string>()
    while (i < tokens.length && tokens[i].text !== ';') {
      const key = tokens[i++]
      if (key.kind !== 'word') fail('expected an option name')
      if (tokens[i]?.text !== '=' || tokens[i].kind !== 'symbol')
        fail(`value not specified for key '${key.text}'`)
      const value = tokens[i + 1]
      if (value === undefined || value.kind === 'symbol') fail(`value not specified for key '${key.text}'`)
      options.set(key.text, value.text)
      i += 2
    }
    if (tokens[i]?.text !== ';') fail('entry not terminated by a semicolon')
    i++
    entries.push({ loginModule: module.text, controlFlag, options })
  }
  if (entries.length === 0) fail('login module not specified')
  return entries
}

/** The option `key` of the first entry of `loginModule` (Fluss's JaasContext.configEntryOption). */
export function jaasOption(
  entries: readonly JaasEntry[],
  loginModule: string,
  key: string,
): string | undefined {
  for (const e of entries) if (e.loginModule === loginModule && e.options.has(key)) return e.options.get(key)
  return undefined
}

/** The `user_<name>` options of a login module: user name → stored secret. */
export function jaasUsers(entries: readonly JaasEntry[], loginModule: string): Map<string, string> {
  const users = new Map<string, string>()
  for (const e of entries) {
    if (e.loginModule !== loginModule) continue
    for (const [k, v] of e.options)
      if (k.startsWith('user_') && k.length > 5 && !users.has(k.slice(5))) users.set(k.slice(5), v)
  }
  return users
}

const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/** A client JAAS line for PLAIN, quoting as JaasConfig reads it back. */
export function plainClientJaas(username: string, password: string): string {
  return `${PLAIN_LOGIN_MODULE} required username=${quote(username)} password=${quote(password)};`
}

/**
 * A server JAAS config for PLAIN: `user_<name>` entries, plus `username`/`password` when the
 * server presents credentials itself (the internal listener).
 */
export function plainServerJaas(
  users: Readonly<Record<string, string>>,
  own?: { readonly username: string; readonly password: string },
): string {
  const self = own === undefined ? '' : ` username=${quote(own.username)} password=${quote(own.password)}`
  const entries = Object.entries(users).map(([u, p]) => ` user_${u}=${quote(p)}`)
  return `${PLAIN_LOGIN_MODULE} required${self}${entries.join('')};`
}
