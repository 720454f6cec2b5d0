import type { AutoPartitionTimeUnit } from '@sluice/core/config'

/**
 * Fluss's AutoPartitionManagerTest scenarios (numPreCreate 4 for single-key tables, numRetention 2):
 * a forced first check, manual creates and drops, then two periodic checks at later times.
 */
export interface Scenario {
  readonly unit: AutoPartitionTimeUnit
  readonly multiKey: boolean
  readonly start: string
  readonly expected: readonly string[]
  readonly manualCreated: readonly string[]
  readonly manualDropped: readonly string[]
  readonly at1: string
  readonly expected1: readonly string[]
  readonly at2: string
  readonly expected2: readonly string[]
}

export const FLUSS_SCENARIOS: readonly Scenario[] = [
  {
    unit: 'HOUR',
    multiKey: false,
    start: '2024-09-10T01:00',
    expected: ['2024091001', '2024091002', '2024091003', '2024091004'],
    manualCreated: ['2024091006'],
    manualDropped: ['2024091001'],
    at1: '2024-09-10T04:00',
    expected1: ['2024091002', '2024091003', '2024091004', '2024091005', '2024091006', '2024091007'],
    at2: '2024-09-10T06:00',
    expected2: ['2024091004', '2024091005', '2024091006', '2024091007', '2024091008', '2024091009'],
  },
  {
    unit: 'HOUR',
    multiKey: true,
    start: '2024-09-10T01:00',
    expected: [],
    manualCreated: ['2024091001$A', '2024091001$B', '2024091001$C', '2024091002$A', '2024091002$B'].concat(
      '2024091003$A',
      '2024091004$A',
      '2024091005$A',
    ),
    manualDropped: ['2024091002$A'],
    at1: '2024-09-10T04:00',
    expected1: ['2024091002$B', '2024091003$A', '2024091004$A', '2024091005$A'],
    at2: '2024-09-10T06:00',
    expected2: ['2024091004$A', '2024091005$A'],
  },
  {
    unit: 'DAY',
    multiKey: false,
    start: '2024-09-10T00:00',
    expected: ['20240910', '20240911', '20240912', '20240913'],
    manualCreated: ['20240915'],
    manualDropped: ['20240910'],
    // 23 hours into the day: past any creation jitter.
    at1: '2024-09-13T23:00',
    expected1: ['20240911', '20240912', '20240913', '20240914', '20240915', '20240916'],
    at2: '2024-09-15T23:00',
    expected2: ['20240913', '20240914', '20240915', '20240916', '20240917', '20240918'],
  },
  {
    unit: 'DAY',
    multiKey: true,
    start: '2024-09-10T00:00',
    expected: [],
    manualCreated: [
      '20240910$A',
      '20240910$B',
      '20240910$C',
      '20240911$A',
      '20240911$B',
      '20240912$A',
    ].concat('20240913$A', '20240914$A'),
    manualDropped: ['20240911$A'],
    at1: '2024-09-13T23:00',
    expected1: ['20240911$B', '20240912$A', '20240913$A', '20240914$A'],
    at2: '2024-09-15T23:00',
    expected2: ['20240913$A', '20240914$A'],
  },
  {
    unit: 'MONTH',
    multiKey: false,
    start: '2024-09-10T00:00',
    expected: ['202409', '202410', '202411', '202412'],
    manualCreated: ['202502'],
    manualDropped: ['202409'],
    at1: '2024-12-10T00:00',
    expected1: ['202410', '202411', '202412', '202501', '202502', '202503'],
    at2: '2025-02-10T00:00',
    expected2: ['202412', '202501', '202502', '202503', '202504', '202505'],
  },
  {
    unit: 'MONTH',
    multiKey: true,
    start: '2024-09-10T00:00',
    expected: [],
    manualCreated: [
      '202409$A',
      '202409$B',
      '202409$C',
      '202410$A',
      '202410$B',
      '202411$A',
      '202412$A',
      '202413$A',
    ],
    manualDropped: ['202410$A'],
    at1: '2024-12-10T00:00',
    expected1: ['202410$B', '202411$A', '202412$A', '202413$A'],
    at2: '2025-02-10T00:00',
    expected2: ['202412$A', '202413$A'],
  },
  {
    unit: 'QUARTER',
    multiKey: false,
    start: '2024-09-10T00:00',
    expected: ['20243', '20244', '20251', '20252'],
    manualCreated: ['20254'],
    manualDropped: ['20243'],
    at1: '2025-06-10T00:00',
    expected1: ['20244', '20251', '20252', '20253', '20254', '20261'],
    at2: '2025-12-10T00:00',
    expected2: ['20252', '20253', '20254', '20261', '20262', '20263'],
  },
  {
    unit: 'QUARTER',
    multiKey: true,
    start: '2024-09-10T00:00',
    expected: [],
    manualCreated: [
      '20243$A',
      '20243$B',
      '20243$C',
      '20244$A',
      '20244$B',
      '20251$A',
      '20252$A',
      '20253$B',
      '20254$C',
    ],
    manualDropped: ['20243$A'],
    at1: '2025-06-10T00:00',
    expected1: ['20244$A', '20244$B', '20251$A', '20252$A', '20253$B', '20254$C'],
    at2: '2025-12-10T00:00',
    expected2: ['20252$A', '20253$B', '20254$C'],
  },
  {
    unit: 'YEAR',
    multiKey: false,
    start: '2024-09-10T00:00',
    expected: ['2024', '2025', '2026', '2027'],
    manualCreated: ['2029'],
    manualDropped: ['2024'],
    at1: '2027-09-10T00:00',
    expected1: ['2025', '2026', '2027', '2028', '2029', '2030'],
    at2: '2029-09-10T00:00',
    expected2: ['2027', '2028', '2029', '2030', '2031', '2032'],
  },
  {
    unit: 'YEAR',
    multiKey: true,
    start: '2024-09-10T00:00',
    expected: [],
    manualCreated: ['2024$A', '2024$B', '2024$C', '2025$A', '2025$B', '2026$A', '2027$B', '2028$C'],
    manualDropped: ['2025$B'],
    at1: '2027-09-10T00:00',
    expected1: ['2025$A', '2026$A', '2027$B', '2028$C'],
    at2: '2029-09-10T00:00',
    expected2: ['2027$B', '2028$C'],
  },
]
