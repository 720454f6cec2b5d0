import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { renderConfigDoc } from './docgen.js'
import { ALL_OPTIONS, SCOPES } from './options.js'

const CONFIG_MD = fileURLToPath(new URL('../../../docs/config.md', import.meta.url))
const REGENERATE =
  'docs/config.md is stale: regenerate it with `npx tsc -b core && node core/dist/config/write-docs.js`'

describe('renderConfigDoc', () => {
  const doc = renderConfigDoc()

  it('lists every option once, in a section per scope', () => {
    for (const opt of ALL_OPTIONS) expect(doc.split(`| \`${opt.key}\` |`).length - 1, opt.key).toBe(1)
    expect(doc.match(/^## /gm)?.length).toBe(SCOPES.length)
  })

  it('shows type, default, range and alterability', () => {
    expect(doc).toContain(
      '| `table.log.arrow.compression.zstd.level` | int | `3` | 1 … 22 | no | ZSTD level used when the ARROW log is compressed with ZSTD. |',
    )
    expect(doc).toMatch(/\| `table.datalake.freshness` \| duration \| `3 min` \| {2}\| yes \|/)
    expect(doc).toMatch(/\| `log.segment.file-size` \| memory \| `1 gb` \| 1 byte … 2 gb \|/)
    expect(doc).toMatch(/\| `client.writer.buffer.wait-timeout` \| duration \| unbounded \|/)
  })

  it('does not depend on the machine it runs on', () => {
    expect(doc).not.toContain(`\`${join(tmpdir(), 'fluss')}\``)
    expect(doc).toContain("| `client.scanner.io.tmpdir` | string | 'fluss' in the system temp directory |")
    expect(doc).toContain("the coordinator's system time zone")
  })

  it('matches the committed docs/config.md', () => {
    expect(readFileSync(CONFIG_MD, 'utf8') === doc, REGENERATE).toBe(true)
  })
})
