/**
 * The viewer's model against Python's golden fixtures (`tests/golden.py`):
 * for every trace the test suite records, the IR state, the graph, the IR
 * lines, each step's label and change counts, and every op's lineage must be
 * what passviz's pure-data reference says, at every stored step; files cut
 * mid-line open with the steps completed before the cut, as in Python.  The
 * dispatch graph (`src/model/dispatch.ts`) must be `passviz/view/dispatch.py`'s.
 *
 * `tests/test_golden_model.py` writes the fixtures and runs this file with
 * PASSVIZ_GOLDEN naming their folder.  Without fixtures the suite fails
 * rather than passing with nothing checked; `jlpm test` leaves this file
 * out unless PASSVIZ_GOLDEN is set (`jest.config.js`).
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { dispatchGraph, dispatchVocabulary } from '../src/model/dispatch';
import { GraphBuilder } from '../src/model/graph';
import { irLines, layoutAliases, printedNames } from '../src/model/irtext';
import { lineage } from '../src/model/lineage';
import type { IRState } from '../src/model/state';
import { stepCounts } from '../src/model/steps';
import { StateCursor, Trace, TraceError } from '../src/model/trace';

const folder = process.env.PASSVIZ_GOLDEN ?? '';
const names = folder !== '' && existsSync(folder)
  ? readdirSync(folder).filter(f => f.endsWith('.expected.json')).map(f => f.slice(0, -'.expected.json'.length))
  : [];

interface Expected {
  steps: Array<{
    step: number;
    label?: string;
    counts?: string;
    state?: Record<string, Record<string, unknown[]>>;
    graph?: { nodes: unknown[][]; edges: unknown[][] };
    dispatch?: { nodes: unknown[][]; edges: unknown[][] };
    lines?: string[];
    aliases?: string[];
    names?: { values: Record<string, string>; blocks: Record<string, string> };
  }>;
  lineage: Record<string, unknown[][]>;
}

function stateOf(state: IRState): Record<string, Record<string, unknown[]>> {
  const ops: Record<string, unknown[]> = {};
  for (const o of state.ops.values()) {
    ops[o.id] = [o.name, o.block, [...o.operands], [...o.results], [...o.successors], [...o.regions], o.text];
  }
  const blocks: Record<string, unknown[]> = {};
  for (const b of state.blocks.values()) {
    blocks[b.id] = [b.region, [...b.args], b.name, [...b.ops]];
  }
  const regions: Record<string, unknown[]> = {};
  for (const r of state.regions.values()) {
    regions[r.id] = [r.op, [...r.blocks]];
  }
  const values: Record<string, unknown[]> = {};
  for (const v of state.values.values()) {
    values[v.id] = [v.type, v.name, v.owner, v.index, v.isArg];
  }
  return { ops, blocks, regions, values };
}

describe('the model against the golden fixtures', () => {
  test('the fixtures are there', () => {
    expect(folder).not.toBe('');
    expect(names.length).toBeGreaterThan(0);
  });

  test.each(names)('%s: every step means what Python says', name => {
    const text = readFileSync(join(folder, `${name}.passviz.json`), 'utf8');
    const expected = JSON.parse(readFileSync(join(folder, `${name}.expected.json`), 'utf8')) as Expected;
    const trace = Trace.from(text);
    expect(trace.steps.length).toBe(expected.steps.length - 1);
    const cursor = new StateCursor(trace);
    // One builder for all steps, as the viewer builds them: what it reuses must be what Python says.
    const builder = new GraphBuilder();
    for (const want of expected.steps) {
      const step = want.step;
      if (step >= 0) {
        expect([step, trace.label(step)]).toEqual([step, want.label]);
        expect([step, stepCounts(trace.steps[step])]).toEqual([step, want.counts]);
      }
      if (want.state === undefined) {
        continue;
      }
      const state = cursor.at(step);
      expect([step, stateOf(state)]).toEqual([step, want.state]);
      const graph = builder.build(state);
      const nodes = [...graph.nodes.values()].map(n => [n.id, n.kind, n.parent, n.label, n.text]);
      const edges = [...graph.edges.values()].map(e => [e.id, e.kind, e.source, e.target, e.label]);
      expect([step, { nodes, edges }]).toEqual([step, want.graph]);
      if (want.dispatch !== undefined) {
        // As the trace's meta.dispatch defines it (none without one), as Python's twin reads it.
        const dispatch = dispatchGraph(state, dispatchVocabulary(trace.header.meta.dispatch));
        expect([step, 'dispatch', {
          nodes: [...dispatch.nodes.values()].map(n => [n.id, n.kind, n.parent, n.label, n.members]),
          edges: [...dispatch.edges.values()].map(e => [e.id, e.kind, e.source, e.target, e.label])
        }]).toEqual([step, 'dispatch', want.dispatch]);
      }
      const lines = irLines(state);
      const texts = lines.map(l => l.text);
      expect([step, texts]).toEqual([step, want.lines]);
      // What each value and block prints as in the CLI: what Python's twin (passviz/view/printed.py) says.
      const names = printedNames(state, lines);
      expect([step, 'names', { values: Object.fromEntries(names.values), blocks: Object.fromEntries(names.blocks) }]).toEqual([
        step,
        'names',
        want.names
      ]);
      // The aliases the IR pane defines above the module: what Python's twin says, from meta.aliases.
      expect([step, 'aliases', layoutAliases(texts, trace.header.meta.aliases).definitions]).toEqual([
        step,
        'aliases',
        want.aliases
      ]);
    }
    for (const [op, events] of Object.entries(expected.lineage)) {
      const mine = lineage(trace.steps, op).map(e => [e.step, e.op, e.action, e.by, e.text]);
      expect([op, mine]).toEqual([op, events]);
    }
  });

  const cuts = folder !== '' && existsSync(folder) ? readdirSync(folder).filter(f => f.endsWith('.steps')) : [];
  test.each(cuts)('%s: a cut file opens as Python opens it', file => {
    const steps = Number(readFileSync(join(folder, file), 'utf8'));
    const text = readFileSync(join(folder, file.replace(/\.steps$/, '.passviz.json')), 'utf8');
    if (steps < 0) {
      expect(() => Trace.from(text)).toThrow(TraceError);
      return;
    }
    const trace = Trace.from(text);
    expect(trace.status).toBe('incomplete');
    expect(trace.steps.length).toBe(steps);
  });
});
