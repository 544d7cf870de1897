/**
 * Replays a trace with the viewer's own model and prints, for every step
 * (-1 first), one JSON line: the status of every op and block the viewer
 * draws, every op's text, and the IR lines it shows.  The Python tests compare this with
 * passviz's graph diff, so the viewer and the Python side cannot drift.
 *
 *   node replay.cjs TRACE.passviz.json
 */

import { readFileSync } from 'node:fs';

import { diffGraphs, touchedBy } from '../src/model/diff';
import { buildGraph } from '../src/model/graph';
import { irLines } from '../src/model/irtext';
import { StateCursor, Trace } from '../src/model/trace';

const trace = Trace.from(readFileSync(process.argv[2], 'utf8'));
const cursor = new StateCursor(trace);
for (let step = -1; step < trace.steps.length; step++) {
  const [before, after] = cursor.around(step);
  const delta = step >= 0 ? trace.steps[step].delta ?? {} : {};
  const diff = diffGraphs(buildGraph(before), buildGraph(after), touchedBy(delta));
  const nodes: Record<string, [string, string, string | null]> = {};
  for (const node of diff.nodes.values()) {
    if (node.kind === 'op' || node.kind === 'box' || node.kind === 'block') {
      nodes[node.id] = [node.kind, node.status, node.parent];
    }
  }
  const texts: Record<string, string> = {};
  for (const [id, op] of after.ops) {
    texts[id] = op.text;
  }
  const lines = irLines(after).map(line => line.text);
  process.stdout.write(JSON.stringify({ step, nodes, texts, lines }) + '\n');
}
