// The web app's unit tests in one process: `node --test` starts a process per *.test.mjs file (about 0.3 s each
// here), so the test files are named *.unit.mjs and imported by this one, and `node --test Tests/webunit/` stays
// well under a second. Each file still runs alone too: `node --test Tests/webunit/diff.unit.mjs`.
import { readdirSync } from 'node:fs';

const here = new URL('./', import.meta.url);
for (const name of readdirSync(here).filter((n) => n.endsWith('.unit.mjs')).sort()) await import(new URL(name, here));
