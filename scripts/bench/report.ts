/** The bench's outputs: a table for the terminal, and an SVG chart of each route against its floor. */
import type { BenchResults, Measurement } from './run.ts';

/** A route's p50 may be at most this many times its floor's at concurrency 1 (issue 13). */
export const RATIO_TARGET = 1.25;

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '—');

function pad(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '))
    .join('\n');
}

/** One table per concurrency: route, p50/p95/p99, round trips and commands, floor p50/p99, ratio. */
export function formatTable(results: Pick<BenchResults, 'scenarios' | 'options'>): string {
  const sections: string[] = [];
  for (const concurrency of results.options.concurrencies) {
    const rows = [['route', 'p50', 'p95', 'p99', 'trips', 'cmds', 'floor p50', 'floor p99', 'ratio', 'req/s']];
    for (const scenario of results.scenarios) {
      const m: Measurement = scenario.byConcurrency[String(concurrency)]!.summary;
      const flag = concurrency === 1 && m.ratio !== null && m.ratio > RATIO_TARGET ? ' !' : '';
      rows.push([
        scenario.label,
        ms(m.route.p50),
        ms(m.route.p95),
        ms(m.route.p99),
        String(m.roundTrips),
        String(m.commands),
        m.ratio === null ? '—' : ms(m.floor.p50),
        m.ratio === null ? '—' : ms(m.floor.p99),
        m.ratio === null ? '—' : `${m.ratio.toFixed(2)}×${flag}`,
        m.throughput.toFixed(0),
      ]);
    }
    sections.push(
      `concurrency ${concurrency} (ms; median of ${results.options.repeats} run(s) × ${results.options.iterations} requests)\n${pad(rows)}`,
    );
  }
  const commands = results.scenarios.map((scenario) => {
    const m = scenario.byConcurrency[String(results.options.concurrencies[0])]!.summary;
    const others = m.otherSignatures > 0 ? ` (${m.otherSignatures} request(s) differed)` : '';
    return `  ${scenario.label}: ${m.signature || 'no DynamoDB command'}${others}`;
  });
  return `${sections.join('\n\n')}\n\nDynamoDB commands per request, wave by wave (| = a sequential round trip):\n${commands.join('\n')}\n`;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A horizontal bar chart, one panel per concurrency: for each route its p50 (dark) over its
 * floor's p50 (light), and a tick at each one's p99. Hand-written SVG, no dependency.
 */
export function renderChart(results: Pick<BenchResults, 'scenarios' | 'options'>): string {
  const labelWidth = 330;
  // Bars on the left of each panel, their figures in a column on its right.
  const barWidth = 280;
  const panelWidth = barWidth + 190;
  const rowHeight = 34;
  const top = 72;
  const concurrencies = results.options.concurrencies;
  const height = top + results.scenarios.length * rowHeight + 40;
  const width = labelWidth + concurrencies.length * (panelWidth + 30) + 10;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">Each route against its floor (the same DynamoDB commands, bare client), ms</text>`,
    `<text x="10" y="38" fill="#555">dark: route p50 · light: floor p50 · ticks: p99 · ratio = route p50 / floor p50 (target ≤ ${RATIO_TARGET}× at concurrency 1)</text>`,
  ];
  concurrencies.forEach((concurrency, panel) => {
    const x0 = labelWidth + panel * (panelWidth + 30);
    const figures = results.scenarios.map((scenario) => scenario.byConcurrency[String(concurrency)]!.summary);
    const max = Math.max(...figures.flatMap((m) => [m.route.p99, m.floor.p99]).filter(Number.isFinite), 1);
    const scale = (value: number) => (Number.isFinite(value) ? (value / max) * barWidth : 0);
    parts.push(`<text x="${x0}" y="${top - 6}" font-weight="bold">concurrency ${concurrency} (axis 0–${max.toFixed(1)} ms)</text>`);
    parts.push(`<line x1="${x0}" y1="${top}" x2="${x0}" y2="${top + figures.length * rowHeight}" stroke="#999"/>`);
    figures.forEach((m, row) => {
      const y = top + row * rowHeight + 4;
      const hasFloor = m.ratio !== null;
      parts.push(`<rect x="${x0}" y="${y}" width="${scale(m.route.p50).toFixed(1)}" height="12" fill="#1f5fa8"/>`);
      parts.push(
        `<line x1="${x0 + scale(m.route.p99)}" y1="${y}" x2="${x0 + scale(m.route.p99)}" y2="${y + 12}" stroke="#1f5fa8" stroke-width="2"/>`,
      );
      if (hasFloor) {
        parts.push(`<rect x="${x0}" y="${y + 14}" width="${scale(m.floor.p50).toFixed(1)}" height="12" fill="#9cc3ec"/>`);
        parts.push(
          `<line x1="${x0 + scale(m.floor.p99)}" y1="${y + 14}" x2="${x0 + scale(m.floor.p99)}" y2="${y + 26}" stroke="#9cc3ec" stroke-width="2"/>`,
        );
      }
      const over = concurrency === 1 && hasFloor && m.ratio! > RATIO_TARGET;
      const note = hasFloor
        ? `${m.route.p50.toFixed(2)} / ${m.floor.p50.toFixed(2)} = ${m.ratio!.toFixed(2)}×`
        : `${m.route.p50.toFixed(2)} (no floor)`;
      parts.push(`<text x="${x0 + barWidth + 10}" y="${y + 17}" fill="${over ? '#b3261e' : '#333'}">${xml(note)}</text>`);
    });
  });
  results.scenarios.forEach((scenario, row) => {
    parts.push(`<text x="10" y="${top + row * rowHeight + 21}">${xml(scenario.label)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
