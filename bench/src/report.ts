// The pure part of the benchmark: medians, ratios, the console table and the BENCHMARKS.md section.
// No I/O here, so a unit test covers it without starting any server.

/** One autocannon run of one target. */
export interface RoundResult {
  /** Requests per second (average over the run, 2xx only). */
  readonly rps: number;
  /** 99th percentile latency, ms. */
  readonly p99: number;
  /** Responses other than 2xx, plus socket errors and timeouts: must be 0 for a valid figure. */
  readonly failures: number;
}

/** Every round of one target in one scenario. */
export interface Measurement {
  /** The scenario, e.g. `client_credentials ES256`. */
  readonly scenario: string;
  /** The target, e.g. `floor (node:crypto)`. */
  readonly target: string;
  readonly rounds: readonly RoundResult[];
}

/** A measurement reduced to its medians. */
export interface Summary {
  readonly scenario: string;
  readonly target: string;
  readonly rps: number;
  readonly p99: number;
  readonly failures: number;
  readonly rounds: number;
}

/** How one figure compares with another of the same scenario (a target the issue sets). */
export interface Comparison {
  readonly scenario: string;
  readonly label: string;
  /** The ratio measured. */
  readonly value: number;
  /** Human form of the target, e.g. `≥ 0.75`. */
  readonly target: string;
  readonly met: boolean;
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Reduces each measurement to medians over its rounds; failures are summed. */
export function summarise(measurement: Measurement): Summary {
  return {
    scenario: measurement.scenario,
    target: measurement.target,
    rps: median(measurement.rounds.map((round) => round.rps)),
    p99: median(measurement.rounds.map((round) => round.p99)),
    failures: measurement.rounds.reduce((sum, round) => sum + round.failures, 0),
    rounds: measurement.rounds.length,
  };
}

/** Finds a summary by scenario and target. */
export function find(summaries: readonly Summary[], scenario: string, target: string): Summary | undefined {
  return summaries.find((summary) => summary.scenario === scenario && summary.target === target);
}

/**
 * Throughput ratio `a / b` (≥ target) or p99 ratio `a / b` (≤ target) between two targets of one scenario;
 * `undefined` when either is missing.
 */
export function compare(
  summaries: readonly Summary[],
  scenario: string,
  a: string,
  b: string,
  kind:
    | { readonly metric: 'rps'; readonly atLeast: number }
    | { readonly metric: 'p99'; readonly atMost: number },
): Comparison | undefined {
  const left = find(summaries, scenario, a);
  const right = find(summaries, scenario, b);
  if (!left || !right) return undefined;
  if (kind.metric === 'rps') {
    const value = left.rps / right.rps;
    return {
      scenario,
      label: `${a} ÷ ${b}, req/s`,
      value,
      target: `≥ ${kind.atLeast}`,
      met: value >= kind.atLeast,
    };
  }
  const value = left.p99 / right.p99;
  return {
    scenario,
    label: `${a} ÷ ${b}, p99`,
    value,
    target: `≤ ${kind.atMost}`,
    met: value <= kind.atMost,
  };
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function formatRps(value: number): string {
  return Number.isFinite(value) ? integer.format(value) : '—';
}

function formatMs(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(value < 10 ? 1 : 0)} ms` : '—';
}

/** Ratio of each target's throughput to the first target of its scenario (the reference row). */
function ratioToFirst(summaries: readonly Summary[], summary: Summary): string {
  const first = summaries.find((candidate) => candidate.scenario === summary.scenario);
  if (!first || first === summary) return '1.00';
  return (summary.rps / first.rps).toFixed(2);
}

/** A markdown table of medians: one row per target, grouped by scenario, ratio to the scenario's first row. */
export function markdownTable(summaries: readonly Summary[]): string {
  const lines = [
    '| scenario | target | req/s (median) | p99 (median) | ÷ first row | rounds | failed requests |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const summary of summaries) {
    lines.push(
      `| ${summary.scenario} | ${summary.target} | ${formatRps(summary.rps)} | ${formatMs(summary.p99)} | ${ratioToFirst(summaries, summary)} | ${summary.rounds} | ${summary.failures} |`,
    );
  }
  return lines.join('\n');
}

/** A markdown table of the targets the issue sets, met or not. */
export function comparisonTable(comparisons: readonly Comparison[]): string {
  const lines = ['| scenario | ratio | target | measured | verdict |', '|---|---|---|---|---|'];
  for (const comparison of comparisons) {
    lines.push(
      `| ${comparison.scenario} | ${comparison.label} | ${comparison.target} | ${comparison.value.toFixed(2)} | ${comparison.met ? 'met' : '**not met**'} |`,
    );
  }
  return lines.join('\n');
}

/** A plain console table (fixed-width columns). */
export function consoleTable(summaries: readonly Summary[]): string {
  const rows = [
    ['scenario', 'target', 'req/s', 'p99', 'ratio', 'fail'],
    ...summaries.map((summary) => [
      summary.scenario,
      summary.target,
      formatRps(summary.rps),
      formatMs(summary.p99),
      ratioToFirst(summaries, summary),
      String(summary.failures),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')).join('\n');
}

/** The markers between which `pnpm bench` rewrites BENCHMARKS.md. */
export const SECTION_START =
  '<!-- http-bench:start (generated by `pnpm bench`; edits between the markers are lost) -->';
export const SECTION_END = '<!-- http-bench:end -->';

/**
 * Replaces the text between the markers (markers kept), or appends the section with its markers when the
 * document has none yet. Everything outside the markers is left byte for byte.
 */
export function replaceSection(document: string, section: string): string {
  const start = document.indexOf(SECTION_START);
  const end = document.indexOf(SECTION_END);
  const block = `${SECTION_START}\n${section.trim()}\n${SECTION_END}`;
  if (start === -1 || end === -1 || end < start) {
    return `${document.replace(/\s*$/, '')}\n\n${block}\n`;
  }
  return `${document.slice(0, start)}${block}${document.slice(end + SECTION_END.length)}`;
}

/** What the machine and the run looked like. */
export interface RunEnvironment {
  readonly date: string;
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  /** 1-minute load averages sampled during the run. */
  readonly loadSamples: readonly number[];
  readonly durationSeconds: number;
  readonly connections: number;
  readonly rounds: number;
  readonly quick: boolean;
}

/** The generated BENCHMARKS.md section. `extra` holds further markdown (scale and memory figures). */
export function markdownSection(
  environment: RunEnvironment,
  summaries: readonly Summary[],
  comparisons: readonly Comparison[],
  extra = '',
): string {
  const loads = environment.loadSamples;
  const load =
    loads.length === 0
      ? 'not sampled'
      : `${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} (median ${median(loads).toFixed(2)})`;
  return [
    '## HTTP, side by side in one run (`pnpm bench`)',
    '',
    `Generated ${environment.date} on ${environment.cores} cores (${environment.cpuModel}), ${environment.memoryGiB} GiB, Node ${environment.node}; ` +
      `1-minute load average during the run ${load}. autocannon in the bench process, each server in its own child ` +
      `process on loopback; ${environment.connections} connections, ${environment.durationSeconds} s per round after a warm-up, ` +
      `${environment.rounds} rounds interleaved across targets, medians shown${environment.quick ? ' (**quick mode**: too short to quote)' : ''}. ` +
      'Absolute figures move with the machine; the ratios within one run are what to read.',
    '',
    markdownTable(summaries),
    '',
    '### Targets',
    '',
    comparisons.length === 0 ? '(none measured)' : comparisonTable(comparisons),
    extra.trim() === '' ? '' : `\n${extra.trim()}`,
  ].join('\n');
}
