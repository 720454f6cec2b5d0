import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PEER_PYTHON, peerAvailable, REPO_ROOT } from '@sluice/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LocalMode, startLocalMode } from './support/local-mode.js'

/**
 * Every README example is a file under examples/, shown in the README exactly as it is, and run
 * here verbatim against `sluice local` (what `npm start` runs) started the moment before: the
 * TypeScript ones through tsx (the runner the project installs), the Python ones through the test
 * peers' venv, the shell ones with bash. Each prints what it wrote and read; the output is checked.
 */
const EXAMPLES = join(REPO_ROOT, 'examples')
const PYTHON_EXAMPLES = peerAvailable('the Python examples', { python: ['fluss', 'pyarrow', 'pyiceberg'] })
const ran = new Set<string>()

function run(program: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 240_000 },
      (e, out, err) => {
        if (e) reject(new Error(`${args.join(' ')} failed: ${e.message}\n${out}\n${err}`))
        else resolve(out)
      },
    )
  })
}

describe('README examples', () => {
  let dataDir: string
  let local: LocalMode
  let env: Record<string, string>

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sluice-examples-'))
    local = await startLocalMode(dataDir, { SLUICE_TIERING_INTERVAL_MS: '1000' })
    env = {
      SLUICE_BOOTSTRAP_SERVERS: local.banner.bootstrapServers,
      SLUICE_GATEWAY_URL: local.banner.gateway as string,
      SLUICE_DATA_DIR: dataDir,
    }
  })

  afterAll(async () => {
    await local?.interrupt()
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  })

  it('the README shows every example file exactly as it is', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
    const shown = [...readme.matchAll(/<!-- (examples\/[\w.-]+) -->\n```\w+\n([\s\S]*?)```\n/g)]
    const files = readdirSync(EXAMPLES).filter(f => f !== 'tsconfig.json')
    expect(shown.map(m => m[1]).sort()).toEqual(files.map(f => `examples/${f}`).sort())
    for (const [, file, body] of shown) expect(body, file).toBe(readFileSync(join(REPO_ROOT, file), 'utf8'))
    // Every Python or TypeScript block in the README is one of them (sh blocks may list commands).
    const programs = [...readme.matchAll(/```(python|ts)\n/g)].length
    expect(programs).toBe(shown.filter(m => !m[1].endsWith('.sh')).length)
  })

  it('examples/quickstart.ts type-checks against the built SDK and runs with tsx', async () => {
    await run(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'examples/tsconfig.json'],
      {},
    )
    const out = await run(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), 'examples/quickstart.ts'],
      env,
    )
    ran.add('quickstart.ts')
    const lines = out.trim().split('\n')
    expect(lines).toHaveLength(4)
    expect(lines.slice(0, 2)).toEqual(["wrote { id: 1, name: 'first' }", "wrote { id: 2, name: 'second' }"])
    expect(lines.slice(2).join('\n')).toMatch(/^read bucket [01] offset \d \{ id: 1, name: 'first' \}$/m)
    expect(lines.slice(2).join('\n')).toMatch(/^read bucket [01] offset \d \{ id: 2, name: 'second' \}$/m)
  })

  it('examples/http.sh creates, appends and scans over the gateway', async () => {
    const out = await run('bash', ['examples/http.sh'], env)
    ran.add('http.sh')
    const [database, table, appended, scanned] = out
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(database.name).toBe('demo')
    expect([table.name, table.bucket_count, table.kind]).toEqual(['clicks', 2, 'log'])
    expect(appended).toEqual({ row_count: 3 })
    expect(scanned.records.map((r: { row: unknown }) => r.row)).toEqual([
      { id: 1, page: '/home' },
      { id: 2, page: '/docs' },
      { id: 3, page: '/home' },
    ])
    expect(scanned.more).toBe(false)
  })

  it.skipIf(!PYTHON_EXAMPLES)('examples/quickstart.py writes and reads back with pyfluss', async () => {
    const out = await run(PEER_PYTHON, ['examples/quickstart.py'], env)
    ran.add('quickstart.py')
    const lines = out.trim().split('\n')
    expect(lines.slice(0, 2)).toEqual([
      "wrote {'id': 1, 'name': 'first'}",
      "wrote {'id': 2, 'name': 'second'}",
    ])
    expect(lines.slice(2).join('\n')).toMatch(/^read bucket [01] offset \d \{'id': 1, 'name': 'first'\}$/m)
    expect(lines.slice(2).join('\n')).toMatch(/^read bucket [01] offset \d \{'id': 2, 'name': 'second'\}$/m)
  })

  it.skipIf(!PYTHON_EXAMPLES)(
    'examples/lake_tiering.py: Iceberg under the data directory, pyiceberg and union read',
    async () => {
      const out = await run(PEER_PYTHON, ['examples/lake_tiering.py'], env)
      ran.add('lake_tiering.py')
      const lines = out.trim().split('\n')
      expect(lines[0]).toBe('appended ids 0 to 99')
      expect(lines[1]).toMatch(new RegExp(`^iceberg table ${dataDir}/aws/blobs/lake/demo/orders_\\d+$`))
      expect(lines.slice(2)).toEqual([
        "pyiceberg read 100 rows, first {'id': 0, 'item': 'item-0'} last {'id': 99, 'item': 'item-99'}",
        'appended ids 100 to 149',
        'union read 150 rows: the lake snapshot plus the log after it, ids 0 to 149',
      ])
    },
  )

  it('ran every example file (the Python ones need the test peers)', () => {
    const all = readdirSync(EXAMPLES).filter(f => f !== 'tsconfig.json')
    const expected = PYTHON_EXAMPLES ? all : all.filter(f => !f.endsWith('.py'))
    expect([...ran].sort()).toEqual(expected.sort())
  })
})
