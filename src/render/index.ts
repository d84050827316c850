// Generic output layer: no Hudi knowledge. Views describe columns (ColumnSpec); buildTable applies
// hudi-cli's sort/limit/convert rules; the renderers turn the model into FlipTable, CSV/TSV or JSON.
export { buildTable, compareRaw, ROW_NO_HEADER, ROW_NO_KEY } from './table-model.ts';
export type { Raw, ColumnSpec, TableOptions, TableModel, Tone } from './table-model.ts';
export { renderFlipTable, renderPlainTable } from './flip-table.ts';
export type { FlipTableStyle } from './flip-table.ts';
export { renderDelimited } from './delimited.ts';
export { renderJson, selectFields } from './json.ts';
export { javaValueOf, javaDouble, decimalHash00 } from './java.ts';
export { stripAnsi, visibleLength, bold, yellow } from './ansi.ts';
export type { CheckItem, IntroLine } from './person-model.ts';
