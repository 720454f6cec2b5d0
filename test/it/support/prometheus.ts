/** One scrape of a Prometheus endpoint, parsed into series. */
export interface Scrape {
  readonly text: string
  /** Sum of the series of `name` whose labels include `labels`. */
  value(name: string, labels?: Readonly<Record<string, string>>): number
  /** Whether any series of `name` exists. */
  has(name: string): boolean
}

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g

export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`)
  const text = await res.text()
  const series: { name: string; labels: Record<string, string>; value: number }[] = []
  for (const line of text.split('\n')) {
    const m = line.match(LINE)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1] as string] = l[2] as string
    series.push({ name: m[1] as string, labels, value: Number(m[3]) })
  }
  return {
    text,
    has: name => series.some(s => s.name === name),
    value: (name, labels = {}) =>
      series
        .filter(s => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((n, s) => n + s.value, 0),
  }
}
