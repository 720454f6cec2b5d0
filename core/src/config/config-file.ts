import { FlussError } from '../errors/index.js'

/**
 * Parses a Fluss-style flat YAML configuration file (`server.yaml`): one `key: value` per line,
 * `#` comments, blank lines, values plain or quoted ('single' with '' for a quote, "double" with
 * backslash escapes). Anything else (nested maps, flow lists, anchors, block scalars, duplicate
 * keys, missing values) is refused with INVALID_CONFIG_EXCEPTION naming the line; nothing is
 * silently skipped.
 */
export function parseConfigFile(text: string, fileName = 'config file'): Record<string, string> {
  const values: Record<string, string> = {}
  const lineOfKey = new Map<string, number>()
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  lines.forEach((line, i) => {
    const lineNo = i + 1
    const fail = (reason: string): never => {
      throw new FlussError('INVALID_CONFIG_EXCEPTION', `${fileName}:${lineNo}: ${reason}`)
    }
    const entry = parseLine(line, fail)
    if (entry === undefined) return
    const [key, value] = entry
    const first = lineOfKey.get(key)
    if (first !== undefined) fail(`duplicate key '${key}' (first set on line ${first})`)
    lineOfKey.set(key, lineNo)
    values[key] = value
  })
  return values
}

const KEY_VALUE = /^([A-Za-z0-9][A-Za-z0-9._-]*):(.*)$/
const UNSUPPORTED_START = /^[[{&*!|>%@`]/

function parseLine(line: string, fail: (reason: string) => never): [string, string] | undefined {
  const trimmed = line.trim()
  if (trimmed === '' || trimmed.startsWith('#')) return undefined
  if (/^\s/.test(line)) fail("indented line: only flat 'key: value' lines are supported")
  if (trimmed === '---' || trimmed === '...') fail('YAML document markers are not supported')
  const m = KEY_VALUE.exec(trimmed)
  if (!m) fail("expected 'key: value'")
  const [, key, rest] = m as RegExpExecArray
  if (rest !== '' && !/^\s/.test(rest)) fail(`expected a space after ':' in '${key}:'`)
  const value = parseValue(rest.trim(), fail)
  if (value === undefined) fail(`missing value for '${key}'`)
  return [key, value as string]
}

function parseValue(text: string, fail: (reason: string) => never): string | undefined {
  if (text === '' || text.startsWith('#')) return undefined
  if (text.startsWith('"')) return quoted(text, '"', fail)
  if (text.startsWith("'")) return quoted(text, "'", fail)
  if (UNSUPPORTED_START.test(text)) fail(`unsupported YAML syntax '${text[0]}': quote the value`)
  const comment = /\s#/.exec(text)
  const value = (comment ? text.slice(0, comment.index) : text).trim()
  if (/:(\s|$)/.test(value)) fail(`a plain value may not contain ': ' or end with ':': quote the value`)
  return value
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
}

function quoted(text: string, quote: string, fail: (reason: string) => never): string {
  let out = ''
  let i = 1
  for (;;) {
    if (i >= text.length) fail(`unterminated ${quote === '"' ? 'double' : 'single'}-quoted value`)
    const c = text[i]
    if (quote === "'" && c === "'" && text[i + 1] === "'") {
      out += "'"
      i += 2
    } else if (c === quote) {
      break
    } else if (quote === '"' && c === '\\') {
      const escaped = ESCAPES[text[i + 1]]
      if (escaped === undefined || !Object.hasOwn(ESCAPES, text[i + 1]))
        fail(`unsupported escape '\\${text[i + 1] ?? ''}'`)
      out += escaped
      i += 2
    } else {
      out += c
      i += 1
    }
  }
  const after = text.slice(i + 1)
  if (!/^(\s+#.*|\s*)$/.test(after)) fail(`unexpected text after the closing quote: '${after.trim()}'`)
  return out
}
