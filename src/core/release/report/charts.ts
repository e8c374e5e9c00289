/**
 * The reports' charts: ECharts rendered to SVG strings on the server side (no browser, no DOM,
 * no canvas), so an HTML report carries its figures inline and opens offline.
 */
import { BarChart, HeatmapChart, LineChart } from 'echarts/charts';
import {
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  VisualMapComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

echarts.use([
  BarChart,
  HeatmapChart,
  LineChart,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  VisualMapComponent,
  SVGRenderer,
]);

export const PALETTE = ['#2f5bd3', '#d9822b', '#1a7f37', '#b42318', '#6e56cf', '#5b6577'];

const BASE = {
  color: PALETTE,
  animation: false,
  textStyle: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
};

/**
 * One chart as an SVG string. The namespace attributes are dropped: inside HTML an inline <svg>
 * needs none, and the report then holds no URL at all (not even a namespace name).
 */
export function svgChart(option: Record<string, unknown>, width: number, height: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ ...BASE, ...option });
    return chart
      .renderToSVGString()
      .replace(/\s+xmlns(:xlink)?="[^"]*"/g, '')
      .replace(/\s+baseProfile="[^"]*"/, '');
  } finally {
    chart.dispose();
  }
}

const pctAxis = { type: 'value', min: 0, axisLabel: { formatter: (v: number) => `${Math.round(100 * v)}%` } };

/** Real against synthetic shares of a categorical column's values. */
export function barsChart(
  bars: { labels: readonly string[]; real: readonly number[]; synthetic: readonly number[] },
  width = 620,
  height = 240,
): string {
  const rotate = bars.labels.length > 6 ? 35 : 0;
  return svgChart(
    {
      legend: { top: 0, data: ['real', 'synthetic'] },
      grid: { left: 56, right: 12, top: 28, bottom: rotate ? 84 : 36 },
      xAxis: {
        type: 'category',
        data: [...bars.labels],
        axisLabel: { rotate, interval: 0, width: 90, overflow: 'truncate', fontSize: 10 },
      },
      yAxis: { ...pctAxis, name: 'share of rows', nameTextStyle: { align: 'left' } },
      series: [
        { type: 'bar', name: 'real', data: [...bars.real], barMaxWidth: 18 },
        { type: 'bar', name: 'synthetic', data: [...bars.synthetic], barMaxWidth: 18 },
      ],
    },
    width,
    height,
  );
}

/** Real against synthetic cumulative distributions of a numeric column. */
export function cdfChart(
  name: string,
  cdf: { x: readonly number[]; real: readonly number[]; synthetic: readonly number[] },
  width = 620,
  height = 240,
): string {
  const pairs = (ys: readonly number[]) => cdf.x.map((x, i) => [x, ys[i]]);
  return svgChart(
    {
      legend: { top: 0, data: ['real', 'synthetic'] },
      grid: { left: 56, right: 16, top: 28, bottom: 40 },
      xAxis: { type: 'value', scale: true, name, nameLocation: 'middle', nameGap: 24 },
      yAxis: { ...pctAxis, max: 1, name: 'rows ≤ x', nameTextStyle: { align: 'left' } },
      series: [
        { type: 'line', name: 'real', data: pairs(cdf.real), showSymbol: false, step: 'end' },
        { type: 'line', name: 'synthetic', data: pairs(cdf.synthetic), showSymbol: false, step: 'end' },
      ],
    },
    width,
    height,
  );
}

/** A symmetric matrix of errors (null cells left blank) as a heat map. */
export function heatmapChart(
  names: readonly string[],
  values: readonly (readonly (number | null)[])[],
): string {
  const k = names.length;
  const size = Math.max(360, Math.min(900, 140 + 34 * k));
  const data: [number, number, number][] = [];
  let max = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const v = values[i][j];
      if (v === null) continue;
      data.push([i, j, Number(v.toFixed(4))]);
      max = Math.max(max, v);
    }
  }
  const axis = (rotate: number) => ({
    type: 'category',
    data: [...names],
    axisLabel: { interval: 0, rotate, width: 110, overflow: 'truncate', fontSize: 10 },
    splitArea: { show: true },
  });
  return svgChart(
    {
      grid: { left: 120, right: 20, top: 12, bottom: 150 },
      xAxis: axis(45),
      yAxis: { ...axis(0), inverse: true },
      visualMap: {
        min: 0,
        max: Math.max(0.01, Number(max.toPrecision(2))),
        calculable: false,
        orient: 'horizontal',
        left: 'center',
        bottom: 4,
        itemHeight: 160,
        inRange: { color: ['#f4f6fb', '#f2b37b', '#b42318'] },
        text: ['larger error', '0'],
      },
      series: [
        {
          type: 'heatmap',
          data,
          label: { show: k <= 16, fontSize: 9, formatter: (p: { value: number[] }) => p.value[2].toFixed(2) },
        },
      ],
    },
    size + 120,
    size,
  );
}

/** Max error per threshold: the release against the GM and All-0 baselines. */
export function thresholdChart(
  rows: readonly { released: number; gm: number; all0: number }[],
  width = 900,
  height = 280,
): string {
  const labels = rows.map((_, i) => `#${i + 1}`);
  return svgChart(
    {
      legend: { top: 0, data: ['released data', 'GM baseline', 'All-0 baseline'] },
      grid: { left: 56, right: 16, top: 32, bottom: 32 },
      xAxis: {
        type: 'category',
        data: labels,
        axisLabel: { interval: rows.length > 40 ? 'auto' : 0, fontSize: 10 },
      },
      yAxis: { type: 'value', name: 'max error', nameTextStyle: { align: 'left' } },
      series: [
        { type: 'bar', name: 'released data', data: rows.map((r) => r.released), barMaxWidth: 16 },
        {
          type: 'line',
          name: 'GM baseline',
          data: rows.map((r) => r.gm),
          symbol: 'diamond',
          symbolSize: 6,
          lineStyle: { width: 0 },
        },
        {
          type: 'line',
          name: 'All-0 baseline',
          data: rows.map((r) => r.all0),
          symbol: 'triangle',
          symbolSize: 6,
          lineStyle: { width: 0 },
          itemStyle: { color: '#9aa3b2' },
        },
      ],
    },
    width,
    height,
  );
}

/** Share of queries answered within a relative error ζ (plus a small absolute α). */
export function profileChart(profile: readonly { zeta: number; alpha: number; share: number }[]): string {
  return svgChart(
    {
      grid: { left: 56, right: 16, top: 24, bottom: 40 },
      xAxis: {
        type: 'category',
        data: profile.map((p) => `within ${Math.round(100 * p.zeta)}% (+ ${p.alpha.toPrecision(2)})`),
      },
      yAxis: { ...pctAxis, max: 1, name: 'share of queries', nameTextStyle: { align: 'left' } },
      series: [
        {
          type: 'bar',
          data: profile.map((p) => p.share),
          barMaxWidth: 60,
          label: {
            show: true,
            position: 'top',
            formatter: (p: { value: number }) => `${(100 * p.value).toFixed(1)}%`,
          },
        },
      ],
    },
    520,
    240,
  );
}
