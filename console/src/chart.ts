/**
 * The usage chart: net credits per day, stacked by group, drawn by uPlot on a canvas. The same
 * numbers are in the table beside it (screen readers, copying, the tests read the table).
 */
import uPlot from 'uplot';
import { stacked, type UsageSeries } from './model.ts';

/** Distinguishable on white and for common colour blindness (Okabe–Ito), then greys. */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#555555'];

export function drawUsageChart(target: HTMLElement, series: UsageSeries, width: number): uPlot {
  const sums = stacked(series.values);
  // The last group is drawn first: each series covers the ones stacked above it but its own band.
  const order = series.groups.map((_, i) => series.groups.length - 1 - i);
  const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
  const options: uPlot.Options = {
    width,
    height: 260,
    // Half a day either side, so that the first and the last day's bars are whole.
    scales: {
      x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    // Credits are whole numbers: no tick at 0.2.
    axes: [{}, { label: 'credits (net)', size: 60, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 100_000] }],
    legend: { show: true, live: false },
    cursor: { show: true, drag: { x: false, y: false } },
    series: [
      {},
      ...order.map((i) => ({
        label: series.groups[i] ?? '',
        fill: COLOURS[i % COLOURS.length] ?? '#555555',
        stroke: COLOURS[i % COLOURS.length] ?? '#555555',
        width: 0,
        ...(bars ? { paths: bars } : {}),
        points: { show: false },
      })),
    ],
  };
  return new uPlot(options, [series.days, ...order.map((i) => sums[i] ?? [])], target);
}
