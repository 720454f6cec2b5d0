import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { parseConfigFile } from './config-file.js'

function fileError(text: string): string {
  try {
    parseConfigFile(text, 'server.yaml')
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe('INVALID_CONFIG_EXCEPTION')
    return (e as FlussError).message
  }
  throw new Error('expected INVALID_CONFIG_EXCEPTION')
}

describe('parseConfigFile', () => {
  it('reads flat key: value lines with comments, blank lines and quoted values', () => {
    const text = [
      '# Fluss server configuration',
      '',
      'bind.listeners: FLUSS://localhost:9123',
      'tablet-server.id: 1   # the first server',
      "data.dir: '/var/lib/fluss data'",
      'remote.data.dir: "s3://bucket/path#1"  # quoted hash is data',
      "client.id: 'it''s'",
      'sluice.metastore.table: "tab\\tle\\"x\\""',
      'gateway.rest.listen: 127.0.0.1:8080\r',
      'url.value: http://x/#frag',
    ].join('\n')
    expect(parseConfigFile(`\uFEFF${text}`)).toEqual({
      'bind.listeners': 'FLUSS://localhost:9123',
      'tablet-server.id': '1',
      'data.dir': '/var/lib/fluss data',
      'remote.data.dir': 's3://bucket/path#1',
      'client.id': "it's",
      'sluice.metastore.table': 'tab\tle"x"',
      'gateway.rest.listen': '127.0.0.1:8080',
      'url.value': 'http://x/#frag',
    })
  })

  it('rejects a line that is not key: value, naming the line', () => {
    expect(fileError('a: 1\njust some words\n')).toBe("server.yaml:2: expected 'key: value'")
  })

  it('rejects a missing space after the colon', () => {
    expect(fileError('tablet-server.id:1')).toContain("server.yaml:1: expected a space after ':'")
  })

  it('rejects a missing value', () => {
    expect(fileError('x: 1\n\ntablet-server.id:   # nothing')).toBe(
      "server.yaml:3: missing value for 'tablet-server.id'",
    )
  })

  it('rejects indented (nested) lines', () => {
    expect(fileError('gateway:\n  rest.listen: x')).toMatch(/^server.yaml:1: missing value/)
    expect(fileError('a: 1\n  b: 2')).toContain('server.yaml:2: indented line')
  })

  it('rejects duplicate keys', () => {
    expect(fileError('a: 1\nb: 2\na: 3')).toBe("server.yaml:3: duplicate key 'a' (first set on line 1)")
  })

  it('rejects unterminated quotes and text after a closing quote', () => {
    expect(fileError('a: "abc')).toContain('server.yaml:1: unterminated double-quoted value')
    expect(fileError("a: 'abc")).toContain('unterminated single-quoted value')
    expect(fileError('a: "abc" def')).toContain("unexpected text after the closing quote: 'def'")
  })

  it('rejects unsupported escapes', () => {
    expect(fileError('a: "\\q"')).toContain("unsupported escape '\\q'")
  })

  it('rejects YAML flow collections, anchors and block scalars unless quoted', () => {
    expect(fileError('bootstrap.servers: [a, b]')).toContain("unsupported YAML syntax '['")
    expect(fileError('a: &anchor x')).toContain("unsupported YAML syntax '&'")
    expect(fileError('a: |')).toContain("unsupported YAML syntax '|'")
    expect(parseConfigFile('a: "[a, b]"')).toEqual({ a: '[a, b]' })
  })

  it('rejects plain values containing ": " and document markers', () => {
    expect(fileError('a: b: c')).toContain("may not contain ': '")
    expect(fileError('---\na: 1')).toContain('server.yaml:1: YAML document markers')
  })
})
