import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueName, waitUntil } from '../harness/index.js'
import { type CliRun, hasScript, SLUICE_BIN, sluice, sluiceOnTerminal } from './support/cli.js'
import { startReadyCluster, type TestCluster } from './support/cluster.js'

const ROWS = 100_000
const NAMES = ['ann', 'bob', 'cy', 'dee']

function csvOf(from: number, to: number, bad: ReadonlyMap<number, string> = new Map()): string {
  const lines = ['id,name,amount,ts']
  for (let i = from; i < to; i++)
    lines.push(
      bad.get(i) ??
        `${i},${NAMES[i % 4]},${(i % 1000) / 10},2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000`,
    )
  return `${lines.join('\n')}\n`
}

/** JSON lines of the CSV files' columns, ids from..to-1. */
function eventLines(from: number, to: number): string {
  const lines: string[] = []
  for (let i = from; i < to; i++)
    lines.push(JSON.stringify({ id: i, name: NAMES[i % 4], amount: i / 10, ts: '2026-01-01T00:00:00.000' }))
  return `${lines.join('\n')}\n`
}

function ids(run: CliRun): number[] {
  return run.stdout
    .trim()
    .split('\n')
    .filter(l => l !== '')
    .map(l => (JSON.parse(l) as { id: number }).id)
    .sort((a, b) => a - b)
}

describe('the sluice binary against a local cluster', () => {
  let tc: TestCluster
  let dir: string
  let env: Record<string, string>
  let db: string
  const run = (...args: string[]) => sluice(args, { env })
  const ok = async (...args: string[]) => {
    const r = await run(...args)
    expect(r.code, `sluice ${args.join(' ')}\n${r.stderr}`).toBe(0)
    return r
  }
  const json = async (...args: string[]) => JSON.parse((await ok('--output', 'json', ...args)).stdout)
  /** A log table of the CSV files' columns. */
  const createEvents = (name: string, buckets = 1) =>
    ok(
      'table',
      'create',
      `${db}.${name}`,
      '--column',
      'id:BIGINT',
      '--column',
      'name:STRING',
      '--column',
      'amount:DOUBLE',
      '--column',
      'ts:TIMESTAMP(3)',
      '--buckets',
      String(buckets),
    )

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 1,
      prefix: 'sluice-it-cli',
      serverConfig: { 'default.replication.factor': '1' },
    })
    dir = mkdtempSync(join(tmpdir(), 'sluice-cli-'))
    env = { SLUICE_BOOTSTRAP: tc.cluster.bootstrapServers }
    db = uniqueName('cli_db')
    await ok('db', 'create', db)
  })

  afterAll(async () => {
    await tc?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('usage errors exit 2, a missing table 3, an unreachable cluster 5; --help exits 0', async () => {
    expect((await sluice(['--help'])).code).toBe(0)
    expect((await sluice(['db', 'list'], { env: { SLUICE_BOOTSTRAP: '' } })).code).toBe(2)
    expect((await run('no-such-command')).code).toBe(2)
    expect((await run('table', 'describe', 'no_dot')).code).toBe(2)
    const missing = await run('table', 'describe', `${db}.missing`)
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain('TABLE_NOT_EXIST')
    expect((await run('--property', 'client.no-such-key=1', 'db', 'list')).code).toBe(2)
    const unreachable = await sluice(['-b', '127.0.0.1:1', '-p', 'client.request-timeout=1s', 'db', 'list'])
    expect(unreachable.code).toBe(5)
    expect(unreachable.stderr).toContain('cannot reach 127.0.0.1:1')
  })

  it('db, table and partition commands, with --output json', async () => {
    expect(await json('db', 'list')).toContain(db)
    const scratch = uniqueName('cli_scratch')
    await ok('db', 'create', scratch)
    await ok('db', 'drop', scratch)
    expect(await json('db', 'list')).not.toContain(scratch)

    await ok(
      'table',
      'create',
      `${db}.kv`,
      '--column',
      'id:BIGINT NOT NULL',
      '--column',
      'region:STRING NOT NULL',
      '--column',
      'v:STRING',
      '--primary-key',
      'id,region',
      '--bucket-key',
      'id',
      '--buckets',
      '2',
    )
    const described = await json('table', 'describe', `${db}.kv`)
    expect({
      ...described,
      table: 'db.kv',
      tableId: 0,
      bucketLocations: described.bucketLocations.length,
    }).toMatchSnapshot()
    const tableFile = join(dir, 'table.json')
    writeFileSync(
      tableFile,
      JSON.stringify({
        version: 1,
        schema: { version: 1, columns: [{ name: 'a', data_type: { type: 'INTEGER' } }] },
        partition_key: [],
        bucket_count: 1,
        properties: {},
        custom_properties: {},
      }),
    )
    await ok('table', 'create', `${db}.from_file`, '--schema-file', tableFile)
    await ok('table', 'alter', `${db}.from_file`, '--set', 'table.log.ttl=2d')
    expect((await json('table', 'describe', `${db}.from_file`)).properties['table.log.ttl']).toBe('2d')
    const from = `${db}.from_file`
    await ok(
      'table',
      'alter',
      from,
      '--add-column',
      'b:STRING',
      '--column-comment',
      'b=bee',
      '--column-default',
      'b=x',
    )
    await ok('table', 'alter', from, '--rename-column', 'b=bb', '--modify-column', 'a:BIGINT')
    const refused = await run('table', 'alter', from, '--drop-column', 'nope')
    expect([refused.code, refused.stderr]).toEqual([
      2,
      expect.stringContaining('INVALID_ALTER_TABLE_EXCEPTION'),
    ])
    const narrowed = await run('table', 'alter', from, '--modify-column', 'a:INT')
    expect([narrowed.code, narrowed.stderr]).toEqual([2, expect.stringContaining("Cannot modify column 'a'")])
    const schemas = (await json('table', 'schemas', from)) as Record<string, unknown>[]
    expect(schemas.map(r => [r.schemaId, r.columnId, r.column, r.type, r.comment, r.default])).toEqual([
      [1, 0, 'a', 'INT', null, null],
      [2, 0, 'a', 'INT', null, null],
      [2, 1, 'b', 'STRING', 'bee', 'x'],
      [3, 0, 'a', 'BIGINT', null, null],
      [3, 1, 'bb', 'STRING', 'bee', 'x'],
    ])
    expect((await json('table', 'list', db)).sort()).toEqual(['from_file', 'kv'])
    await ok('table', 'drop', `${db}.from_file`)
    expect(await json('table', 'list', db)).toEqual(['kv'])

    await ok(
      'table',
      'create',
      `${db}.parts`,
      '--column',
      'v:STRING',
      '--column',
      'day:STRING',
      '--partitioned-by',
      'day',
    )
    await ok('partition', 'add', `${db}.parts`, 'day=2026-01-01')
    await ok('partition', 'add', `${db}.parts`, 'day=2026-01-02')
    const parts = await json('partition', 'list', `${db}.parts`)
    expect(parts.map((p: { partition: string }) => p.partition).sort()).toEqual(['2026-01-01', '2026-01-02'])
    await ok('partition', 'drop', `${db}.parts`, 'day=2026-01-01')
    expect((await json('partition', 'list', `${db}.parts`)).length).toBe(1)
    expect((await ok('partition', 'list', `${db}.parts`)).stdout).toContain('2026-01-02')

    const status = await json('cluster', 'status')
    expect(status.servers.map((s: { role: string }) => s.role).sort()).toEqual(['coordinator', 'tablet'])
    expect(status.underReplicatedBuckets).toEqual([])
  })

  it('produces a 100,000-row CSV file that tail reads back whole; offsets add up', async () => {
    await createEvents('csv_events', 2)
    const file = join(dir, 'events.csv')
    writeFileSync(file, csvOf(0, ROWS))
    const produced = await ok('produce', `${db}.csv_events`, '--file', file)
    expect(produced.stderr).toContain(`wrote ${ROWS} rows`)
    for (const mark of ['\u001b[', '\u2588', '\u2591']) expect(produced.stderr).not.toContain(mark) // piped: no progress bar
    const tail = await ok('tail', `${db}.csv_events`, '--from', 'earliest', '--limit', String(ROWS))
    const read = ids(tail)
    expect(read.length).toBe(ROWS)
    expect(read[0]).toBe(0)
    expect(read[ROWS - 1]).toBe(ROWS - 1)
    expect(new Set(read).size).toBe(ROWS)
    const first = JSON.parse(tail.stdout.split('\n').find(l => l.includes('"id":7,')) as string)
    expect(first).toEqual({ id: 7, name: 'dee', amount: 0.7, ts: '2026-01-01T00:00:07.000' })
    const offsets = await json('offsets', `${db}.csv_events`)
    expect(offsets.reduce((n: number, o: { latest: number }) => n + o.latest, 0)).toBe(ROWS)
    const projected = await ok(
      'tail',
      `${db}.csv_events`,
      '--from',
      'earliest',
      '--limit',
      '3',
      '--project',
      'name',
    )
    for (const line of projected.stdout.trim().split('\n'))
      expect(Object.keys(JSON.parse(line))).toEqual(['name'])
  })

  it('produces a 100,000-row Parquet file that tail reads back whole', async () => {
    await ok(
      'table',
      'create',
      `${db}.pq_events`,
      '--column',
      'id:BIGINT',
      '--column',
      'name:STRING',
      '--column',
      'amount:DOUBLE',
    )
    const file = join(dir, 'events.parquet')
    const range = Array.from({ length: ROWS }, (_, i) => i)
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: range.map(BigInt), type: 'INT64' },
        { name: 'name', data: range.map(i => NAMES[i % 4] as string), type: 'STRING' },
        { name: 'amount', data: range.map(i => i / 4), type: 'DOUBLE' },
      ],
      rowGroupSize: 30_000,
    })
    writeFileSync(file, Buffer.from(buffer))
    expect((await ok('produce', `${db}.pq_events`, '--file', file)).stderr).toContain(`wrote ${ROWS} rows`)
    const read = ids(await ok('tail', `${db}.pq_events`, '--from', 'earliest', '--limit', String(ROWS)))
    expect(read.length).toBe(ROWS)
    expect(new Set(read).size).toBe(ROWS)
  })

  it('a bad file reports line numbers and writes none of its failed batch', async () => {
    await createEvents('bad')
    const bad = new Map([
      [1500, '1500,x,not-a-number,2026-01-01T00:00:00'],
      [1700, 'oops,y,1,2026-01-01T00:00:00'],
    ])
    const file = join(dir, 'bad.csv')
    writeFileSync(file, csvOf(0, 3000, bad))
    const r = await run('produce', `${db}.bad`, '--file', file, '--batch-rows', '1000')
    expect(r.code).toBe(2)
    // CSV line = row + 2 (the header is line 1)
    expect(r.stderr).toContain('line 1502: column amount')
    expect(r.stderr).toContain('line 1702: column id')
    expect(r.stderr).toMatch(/lines 1002-2001 were not written; 1000 rows written before them/)
    const offsets = await json('offsets', `${db}.bad`)
    expect(offsets[0].latest).toBe(1000) // the first batch only

    await createEvents('tolerant')
    const tolerant = await run(
      'produce',
      `${db}.tolerant`,
      '--file',
      file,
      '--batch-rows',
      '1000',
      '--max-errors',
      '5',
    )
    expect(tolerant.code).toBe(4)
    expect(tolerant.stderr).toContain('wrote 2998 rows')
    expect((await json('offsets', `${db}.tolerant`))[0].latest).toBe(2998)

    const stdin = await sluice(['produce', `${db}.tolerant`], {
      env,
      input: '{"id": 1, "name": "z"}\n{"id": "x"}\n',
    })
    expect(stdin.code).toBe(2)
    expect(stdin.stderr).toContain('line 2: column id')
  })

  it('lookup, prefix-lookup, tail --changelog and scan on a primary-key table', async () => {
    const rows = [
      '{"id": 1, "region": "eu", "v": "a"}',
      '{"id": 1, "region": "us", "v": "b"}',
      '{"id": 2, "region": "eu", "v": "c"}',
      '{"id": 1, "region": "eu", "v": "a2"}',
    ]
    await sluice(['produce', `${db}.kv`], { env, input: `${rows.join('\n')}\n` }).then(r =>
      expect(r.code, r.stderr).toBe(0),
    )
    expect(await json('lookup', `${db}.kv`, 'id=1', 'region=eu')).toMatchSnapshot()
    expect((await run('lookup', `${db}.kv`, 'id=9', 'region=eu')).code).toBe(3)
    const prefix = await json('prefix-lookup', `${db}.kv`, 'id=1')
    expect(prefix.map((r: { v: string }) => r.v).sort()).toEqual(['a2', 'b'])
    const changelog = await ok('tail', `${db}.kv`, '--from', 'earliest', '--changelog', '--limit', '5')
    const changes = changelog.stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as { _change_type: string; v: string })
    expect(changes.map(c => `${c._change_type}${c.v}`).sort()).toEqual(
      ['+Ia', '+Ib', '+Ic', '+Ua2', '-Ua'].sort(),
    )
    const scan = await ok('scan', `${db}.kv`)
    expect(
      scan.stdout
        .trim()
        .split('\n')
        .map(l => JSON.parse(l).v)
        .sort(),
    ).toEqual(['a2', 'b', 'c'])
    expect((await ok('scan', `${db}.kv`, '--limit', '1')).stdout.trim().split('\n').length).toBe(1)
    const lake = await json(
      '--property',
      `sluice.blobstore.uri=${tc.cluster.aws.blobStoreUri}`,
      'lake',
      'status',
      `${db}.kv`,
    )
    expect({ ...lake, table: 'db.kv', location: '' }).toMatchSnapshot()
    expect((await run('lake', 'status', `${db}.kv`)).code).toBe(2)
  })

  it('tail --from latest prints only records written after it subscribed', async () => {
    await createEvents('latest')
    await sluice(['produce', `${db}.latest`], { env, input: eventLines(0, 5) }).then(r =>
      expect(r.code, r.stderr).toBe(0),
    )
    const tail = spawn(
      process.execPath,
      [SLUICE_BIN, 'tail', `${db}.latest`, '--from', 'latest', '--limit', '3'],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    tail.stdout.on('data', d => {
      stdout += d
    })
    tail.stderr.on('data', d => {
      stderr += d
    })
    const exited = new Promise<number | null>(resolve => tail.once('close', resolve))
    try {
      await waitUntil(async () => stderr.includes(`tailing ${db}.latest from latest`), {
        timeoutMs: 30_000,
        intervalMs: 50,
        what: 'tail to subscribe',
      })
      await sluice(['produce', `${db}.latest`], { env, input: eventLines(100, 103) }).then(r =>
        expect(r.code, r.stderr).toBe(0),
      )
      expect(await exited).toBe(0)
    } finally {
      tail.kill()
    }
    expect(ids({ code: 0, stdout, stderr })).toEqual([100, 101, 102])
  })

  it('tail --from a time (epoch ms or ISO) starts at the first record written at or after it', async () => {
    await createEvents('from_time', 2)
    await sluice(['produce', `${db}.from_time`], { env, input: eventLines(0, 20) }).then(r =>
      expect(r.code, r.stderr).toBe(0),
    )
    await new Promise(r => setTimeout(r, 50))
    const between = Date.now()
    await new Promise(r => setTimeout(r, 50))
    await sluice(['produce', `${db}.from_time`], { env, input: eventLines(20, 30) }).then(r =>
      expect(r.code, r.stderr).toBe(0),
    )
    for (const from of [String(between), new Date(between).toISOString()]) {
      const later = await ok(
        'tail',
        `${db}.from_time`,
        '--from',
        from,
        '--limit',
        '10',
        '--idle-timeout',
        '5000',
      )
      expect(ids(later)).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i))
    }
    // Before everything: every record.
    expect(
      ids(await ok('tail', `${db}.from_time`, '--from', '0', '--limit', '30', '--idle-timeout', '5000'))
        .length,
    ).toBe(30)
    expect((await run('tail', `${db}.from_time`, '--from', 'yesterday-ish')).code).toBe(2)
  })

  it('prints a plain progress line per interval when piped, with growing counts', async () => {
    await createEvents('piped')
    const file = join(dir, 'piped.csv')
    writeFileSync(file, csvOf(0, 20_000))
    const piped = await ok(
      'produce',
      `${db}.piped`,
      '--file',
      file,
      '--batch-rows',
      '5000',
      '--progress-interval',
      '1',
    )
    const lines = piped.stderr.split('\n').filter(l => l.startsWith('produced '))
    expect(lines.length).toBeGreaterThanOrEqual(3)
    const counts = lines.map(l => {
      const m = l.match(/^produced (\d+) rows, [\d.]+ MB, \d+ rows\/s$/)
      expect(m, l).not.toBeNull()
      return Number(m?.[1])
    })
    expect(counts).toEqual([...counts].sort((a, b) => a - b))
    expect(counts.every(c => c % 5000 === 0 && c > 0 && c <= 20_000)).toBe(true)
    expect(piped.stderr).toContain('wrote 20000 rows')
    expect(piped.stderr).not.toMatch(/[\u2588\u2591]/)
    expect((await run('produce', `${db}.piped`, '--progress-interval', '0')).code).toBe(2)
  })

  it.skipIf(!hasScript())('shows a progress bar on a terminal, and plain lines when piped', async () => {
    await createEvents('progress')
    const file = join(dir, 'progress.csv')
    writeFileSync(file, csvOf(0, 50_000))
    const terminal = await sluiceOnTerminal(
      ['produce', `${db}.progress`, '--file', file, '--batch-rows', '5000'],
      env,
    )
    expect(terminal.code).toBe(0)
    expect(terminal.stdout).toMatch(
      /produced \[[\u2588\u2591]+\] \d+% \| \d+ rows \| [\d.]+ MB \| \d+ rows\/s \| ETA/,
    )
    const piped = await run('produce', `${db}.progress`, '--file', file, '--batch-rows', '5000')
    expect(piped.code).toBe(0)
    expect(piped.stderr).not.toMatch(/[\u2588\u2591]/)
    expect(piped.stderr).toContain('wrote 50000 rows')
  })
})
