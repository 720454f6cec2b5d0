import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { OptionBuilder } from './option.js'
import * as registry from './options.js'
import { ALL_OPTIONS } from './options.js'

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)))
/** Where the code that runs lives: every package's sources, never tests, benchmarks or the registry. */
const SOURCE_DIRS = [
  'core/src',
  'lake/src',
  'client/src',
  'services/coordinator/src',
  'services/tablet/src',
  'functions/tiering/src',
  'functions/gateway/src',
  'cli/src',
  'cdk/lib',
  'cdk/bin',
  'localstack/src',
]
const REGISTRY_FILE = /^core\/src\/config\/options(-[a-z]+)?\.ts$/

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'testing' && entry.name !== 'generated') out.push(...sourceFiles(path))
    } else if (/\.ts$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name) && !REGISTRY_FILE.test(path)) {
      out.push(path)
    }
  }
  return out
}

/** The registry's exported option constants by key: what code imports to read an option. */
function constantNames(): Map<string, string> {
  const names = new Map<string, string>()
  for (const [name, value] of Object.entries(registry)) {
    if (value instanceof OptionBuilder) names.set(value.key, name)
  }
  return names
}

describe('every registered option is read somewhere or refused', () => {
  const texts = SOURCE_DIRS.flatMap(sourceFiles).map(path => ({
    path: relative(ROOT, join(ROOT, path)),
    text: readFileSync(join(ROOT, path), 'utf8'),
  }))
  const names = constantNames()

  it('finds the sources and the constants it looks for', () => {
    expect(texts.length).toBeGreaterThan(300)
    expect(texts.some(t => t.path === 'services/tablet/src/remote/remote-log-types.ts')).toBe(true)
    expect(texts.some(t => t.path.endsWith('.test.ts'))).toBe(false)
    for (const opt of ALL_OPTIONS) expect(names.get(opt.key), opt.key).toBeDefined()
  })

  it('has a consumer outside the registry for each supported option, and none for a refused one', () => {
    const consumers = (key: string): string[] => {
      const name = names.get(key) as string
      const byName = new RegExp(`\\b${name}\\b`)
      return texts.filter(t => byName.test(t.text) || t.text.includes(`'${key}'`)).map(t => t.path)
    }
    const unread = ALL_OPTIONS.filter(o => o.refusal === undefined && consumers(o.key).length === 0)
    expect(
      unread.map(o => o.key),
      'accepted and read nowhere: read them, or mark them notSupported',
    ).toEqual([])
    const refusedButRead = ALL_OPTIONS.filter(
      o => o.refusal !== undefined && consumers(o.key).some(p => !p.startsWith('core/src/config/')),
    )
    expect(
      refusedButRead.map(o => o.key),
      'refused yet read: drop the refusal',
    ).toEqual([])
  })

  it('refuses the Fluss keys that Sluice does not implement', () => {
    const refused = ALL_OPTIONS.filter(o => o.refusal !== undefined).map(o => o.key)
    expect(refused).toEqual(
      expect.arrayContaining([
        'table.datalake.auto-compaction',
        'table.datalake.auto-expire-snapshot',
        'table.datalake.historical-partition.enabled',
        'table.kv.standby-replica.enabled',
        'table.statistics.columns',
      ]),
    )
    expect(refused).not.toContain('table.log.local-ttl')
    expect(refused).not.toContain('table.auto-increment.cache-size')
  })
})
