import type { ScenarioSummary } from './results';
import { ratioTargetsOf, TARGETS, type RatioTargets } from './targets';

const LABEL_WIDTH = 210;
const PANEL_WIDTH = 300;
const GAP = 90;
const ROW_HEIGHT = 48;
const TOP = 88;
const MET = '#2e7d32';
const MISSED = '#c62828';
const TICKS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

interface Bar {
  value: number;
  ok: boolean;
  shade: number;
  label: string;
}

interface Panel {
  title: string;
  /** One dashed line per distinct target: the reads' and the writes'. */
  targets: { value: number; label: string }[];
  /** The smallest range shown, so that the target and parity (1) are always on the axis. */
  least: [number, number];
  bars: (summary: ScenarioSummary) => Bar[];
}

/**
 * A bar chart of the service / lean ratios per scenario, as a standalone SVG document. Ratios
 * go on a logarithmic axis, where 0.5× and 2× lie equally far from parity.
 */
export function ratioChart(summaries: ScenarioSummary[], subtitle: string): string {
  const lines = (target: (targets: RatioTargets) => number, sign: string) =>
    (['reads', 'writes'] as const).map((kind) => ({ value: target(TARGETS[kind]), label: `${kind} ${sign} ${target(TARGETS[kind])}` }));
  const panels: Panel[] = [
    {
      title: 'Throughput, service / lean (higher is better)',
      targets: lines((targets) => targets.minThroughputRatio, '≥'),
      least: [0.1, 2],
      bars: (s) => [{ value: s.throughputRatio, ok: s.throughputRatio >= ratioTargetsOf(s.scenario).minThroughputRatio, shade: 1, label: 'req/s' }],
    },
    {
      title: 'Cost, service / lean (lower is better)',
      targets: lines((targets) => targets.maxCpuPerRequestRatio, '≤'),
      least: [0.5, 5],
      bars: (s) => [
        { value: s.cpuRatio, ok: s.cpuRatio <= ratioTargetsOf(s.scenario).maxCpuPerRequestRatio, shade: 1, label: 'CPU/req' },
        { value: s.p99Ratio, ok: s.p99Ratio <= ratioTargetsOf(s.scenario).maxP99Ratio, shade: 0.55, label: 'p99' },
      ],
    },
  ];
  const bottom = TOP + summaries.length * ROW_HEIGHT;
  const height = bottom + 44;
  const width = LABEL_WIDTH + panels.length * (PANEL_WIDTH + GAP);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="10" y="22" font-size="15" font-weight="bold">Service against the lean baseline: ratios per scenario</text>`,
    `<text x="10" y="40" fill="#555555">${escape(subtitle)}</text>`,
    ...summaries.map((summary, row) => `<text x="10" y="${TOP + row * ROW_HEIGHT + 24}">${escape(summary.title)}</text>`),
    `<text x="10" y="${height - 8}" fill="#555555">Green: target met; red: missed. Dashed: the targets of reads and of writes. Logarithmic axes.</text>`,
  ];
  panels.forEach((panel, index) => {
    const left = LABEL_WIDTH + index * (PANEL_WIDTH + GAP);
    const values = summaries.flatMap((summary) => panel.bars(summary).map((bar) => bar.value)).filter((value) => value > 0 && Number.isFinite(value));
    const low = TICKS.filter((tick) => tick <= Math.min(panel.least[0], ...values)).at(-1) ?? TICKS[0];
    const high = TICKS.find((tick) => tick >= Math.max(panel.least[1], ...values)) ?? TICKS[TICKS.length - 1];
    const x = (value: number) => {
      const clamped = Math.min(Math.max(Number.isFinite(value) && value > 0 ? value : low, low), high);
      return left + (Math.log(clamped / low) / Math.log(high / low)) * PANEL_WIDTH;
    };
    parts.push(`<text x="${left}" y="${TOP - 22}" font-weight="bold">${escape(panel.title)}</text>`);
    for (const tick of TICKS.filter((t) => t >= low && t <= high)) {
      parts.push(
        `<line x1="${x(tick)}" y1="${TOP - 6}" x2="${x(tick)}" y2="${bottom}" stroke="${tick === 1 ? '#888888' : '#e0e0e0'}"/>`,
        `<text x="${x(tick)}" y="${bottom + 14}" text-anchor="middle" fill="#666666">${tick}</text>`,
      );
    }
    panel.targets.forEach((target, i) => {
      parts.push(
        `<line x1="${x(target.value)}" y1="${TOP - 6}" x2="${x(target.value)}" y2="${bottom}" stroke="${MISSED}" stroke-dasharray="5,3"/>`,
        `<text x="${x(target.value) + 3}" y="${TOP - 8 + i * 10}" fill="${MISSED}" font-size="10">${escape(target.label)}</text>`,
      );
    });
    summaries.forEach((summary, row) => {
      const bars = panel.bars(summary);
      const barHeight = bars.length === 1 ? 22 : 15;
      bars.forEach((bar, i) => {
        const y = TOP + row * ROW_HEIGHT + 6 + i * (barHeight + 3);
        const shown = Number.isFinite(bar.value) ? bar.value.toFixed(2) : 'n/a';
        parts.push(
          `<rect x="${left}" y="${y}" width="${x(bar.value) - left}" height="${barHeight}" fill="${bar.ok ? MET : MISSED}" fill-opacity="${bar.shade}"/>`,
          `<text x="${x(bar.value) + 4}" y="${y + barHeight - 4}">${escape(`${bar.label} ${shown}`)}</text>`,
        );
      });
    });
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
