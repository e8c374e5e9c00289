/** The ECharts modules the app uses (tree-shaken), registered once. */
import { BarChart, HeatmapChart, LineChart } from 'echarts/charts';
import {
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
  VisualMapComponent,
} from 'echarts/components';
import { use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

use([
  CanvasRenderer,
  LineChart,
  BarChart,
  HeatmapChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  MarkLineComponent,
  MarkAreaComponent,
  TitleComponent,
  VisualMapComponent,
  DataZoomComponent,
]);

export const PALETTE = ['#2f5bd3', '#d9822b', '#1a7f37', '#b42318', '#6e56cf', '#5b6577'];

/** Shared look: readable axis labels, quiet grid lines. */
export const BASE = {
  color: PALETTE,
  textStyle: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
  animation: false,
  grid: { left: 64, right: 24, top: 36, bottom: 48, containLabel: false },
};
