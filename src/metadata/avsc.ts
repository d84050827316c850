// avsc takes ~14 ms to load, and a timeline of JSON instants (0.x tables) never needs it: it is
// required on first use instead of imported.
import { createRequire } from 'node:module';
import type avro from 'avsc';

let lib: typeof avro | undefined;

export function avsc(): typeof avro {
  lib ??= createRequire(import.meta.url)('avsc') as typeof avro;
  return lib;
}
