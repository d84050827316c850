export { generateDemoTable, type DemoOptions, type DemoSummary, type DemoInstant, type DemoProblem, type DemoProblemKind } from './generate.ts';
export { DEMO_TABLE, TABLE_SCHEMA as DEMO_TABLE_SCHEMA, WRITER_SCHEMA as DEMO_WRITER_SCHEMA } from './data.ts';
