/**
 * @jest-environment node
 */
import { countStatuses, diffGraphs, movedBy, touchedBy, UnchangedCache } from '../src/model/diff';
import { buildGraph, GraphBuilder } from '../src/model/graph';
import { diffLines, irLines, layoutAliases } from '../src/model/irtext';
import { StructureLayout } from '../src/model/layout';
import { layoutProblems } from './invariants';
import { lineage } from '../src/model/lineage';
import { shownValue } from '../src/view/details';
import { ReplayError } from '../src/model/state';
import { stepCounts, stepLabel } from '../src/model/steps';
import { StateCursor, Trace, readRecords } from '../src/model/trace';
import { isBookkeeping, StepIndex, stepMatches, type TimelineFilter } from '../src/view/timeline';
import { header, records } from './fixture';

function trace(): Trace {
  return new Trace(records());
}

describe('the step model', () => {
  test('the initial delta builds the module', () => {
    const state = trace().initialState();
    expect(state.walkOps()).toEqual(['o0', 'o1', 'o2', 'o3']);
    expect(state.block('b1').ops).toEqual(['o2', 'o3']);
    expect(state.parents('o2')).toEqual(['o0', 'r0', 'b0', 'o1', 'r1', 'b1']);
    expect(state.values.get('v0')).toMatchObject({ owner: 'b1', isArg: true, type: 'i32' });
    expect(state.op('o2').text).toBe('%v1 = arith.addi %v0, %v0 : i32');
  });

  test('a rewrite creates, places, modifies and erases', () => {
    const state = new StateCursor(trace()).at(1);
    expect(state.block('b1').ops).toEqual(['o4', 'o3']);
    expect(state.ops.has('o2')).toBe(false);
    expect(state.values.has('v1')).toBe(false);
    expect(state.op('o3').operands).toEqual(['v2']);
    expect(state.op('o3').text).toBe('func.return %v2 : i32');
  });

  test('ops move into a new region', () => {
    const state = new StateCursor(trace()).at(2);
    expect(state.walkOps()).toEqual(['o0', 'o1', 'o5', 'o4', 'o6', 'o3']);
    expect(state.parents('o4')).toEqual(['o0', 'r0', 'b0', 'o1', 'r1', 'b1', 'o5', 'r2', 'b2']);
    expect(state.regions.get('r2')).toMatchObject({ op: 'o5', blocks: ['b2'] });
  });

  test('going back gives the same state as replaying from the start', () => {
    const cursor = new StateCursor(trace(), 2);
    cursor.at(4);
    const back = cursor.at(1);
    const fresh = new StateCursor(trace()).at(1);
    expect(back.walkOps()).toEqual(fresh.walkOps());
    expect([...back.ops.values()]).toEqual([...fresh.ops.values()]);
  });

  test('states held side by side do not change each other', () => {
    const cursor = new StateCursor(trace());
    const [before, after] = cursor.around(1);
    expect(before.ops.has('o2')).toBe(true);
    expect(after.ops.has('o2')).toBe(false);
    cursor.at(2);
    expect(before.block('b1').ops).toEqual(['o2', 'o3']);
  });

  test('a delta naming an unknown op is refused', () => {
    const bad = records();
    (bad[2] as { delta: object }).delta = { ops_erased: ['o99'] };
    expect(() => new StateCursor(new Trace(bad)).at(1)).toThrow(/step 1: cannot apply its delta: cannot erase unknown op o99/);
    expect(() => trace().initialState().op('o42')).toThrow(ReplayError);
  });

  test('steps out of range are refused', () => {
    const cursor = new StateCursor(trace());
    expect(() => cursor.at(5)).toThrow(RangeError);
    expect(() => cursor.at(-2)).toThrow(RangeError);
  });

  test('steps are grouped by pass and failures found', () => {
    const t = trace();
    expect(t.groups.map(g => [g.name, g.steps, g.flagged])).toEqual([['test-pass', [0, 1, 2, 3, 4], true]]);
    expect(t.passNames[2]).toBe('test-pass');
    expect(t.failures.map(s => s.index)).toEqual([3]);
    expect(t.status).toBe('failed');
    expect(stepCounts(t.steps[1])).toBe('+1 -1 ~1');
  });
});

describe('reading traces', () => {
  test('NDJSON text, a record list and the MIME data give the same trace', () => {
    const list = records();
    const ndjson = list.map(r => JSON.stringify(r)).join('\n') + '\n';
    expect(readRecords(ndjson)).toEqual(list);
    expect(readRecords({ format: 'passviz-trace', version: 1, records: list })).toEqual(list);
    expect(readRecords(JSON.stringify({ format: 'passviz-trace', version: 1, records: list }, null, 2))).toEqual(list);
    expect(Trace.from(ndjson).steps).toHaveLength(5);
  });

  test('bad input gets a clear error', () => {
    expect(() => Trace.from('{"record": "header"}\nnot json\n{"index": 0}')).toThrow(/line 2: not JSON/);
    expect(() => Trace.from([{ record: 'nope' }])).toThrow(/not a passviz trace/);
    const old = header();
    delete old.initial;
    expect(() => Trace.from([old])).toThrow(/no structured initial IR/);
    const chain = records();
    (chain[2] as { chain: unknown }).chain = ['<script>'];
    expect(() => new Trace(chain)).toThrow(/chain is not a list of op ids/);
    const order = records();
    (order[2] as { index: number }).index = 7;
    expect(() => new Trace(order)).toThrow(/out of order/);
  });

  test('version 1 headers (the initial IR also as text) still open; unknown versions do not', () => {
    const v1 = { ...header(), version: 1 as const, initial_ir: 'builtin.module {\n}\n' };
    expect(new Trace([v1, ...records().slice(1)]).steps).toHaveLength(5);
    const v3 = { ...header(), version: 3 } as unknown as ReturnType<typeof header>;
    expect(() => new Trace([v3])).toThrow(/unsupported trace version 3/);
  });

  test('a trace cut off before its end record is incomplete', () => {
    expect(new Trace(records().slice(0, 3)).status).toBe('incomplete');
  });
});

describe('the diff', () => {
  test('statuses by id, with ghosts of what was erased', () => {
    const cursor = new StateCursor(trace());
    const [before, after] = cursor.around(1);
    const diff = diffGraphs(buildGraph(before), buildGraph(after), touchedBy(trace().steps[1].delta!));
    const status = (id: string): string | undefined => diff.nodes.get(id)?.status;
    expect(status('o4')).toBe('added');
    expect(status('o2')).toBe('erased');
    expect(diff.nodes.get('o2')!.parent).toBe('b1');
    expect(status('o3')).toBe('modified');
    expect(status('o1')).toBe('unchanged');
    expect(status('b1')).toBe('unchanged');
    expect(diff.edges.get('use:v1>o3#0')?.status).toBe('erased');
    expect(diff.edges.get('use:v2>o3#0')?.status).toBe('added');
    expect(diff.edges.get('use:v0>o4#0')?.status).toBe('added');
    expect(countStatuses(diff)).toEqual({ added: 1, modified: 1, moved: 0, erased: 1, unchanged: 5 }); // o0 o1 b0 b1 v0
  });

  test('an op the step only moved (same text, here into another block) is moved, not modified', () => {
    const node = (id: string, text: string) => ({ id, kind: 'op' as const, parent: 'b0', label: text, text });
    const before = { nodes: new Map([['o1', node('o1', 'a')], ['o2', node('o2', 'b')]]), edges: new Map() };
    const after = { nodes: new Map([['o2', node('o2', 'b')], ['o1', { ...node('o1', 'a'), parent: 'b1' }]]), edges: new Map() };
    const delta = { ops_moved: ['o1', 'o2'], ops_modified: [{ id: 'o2', changes: ['attrs'] }] } as unknown as Parameters<typeof touchedBy>[0];
    const diff = diffGraphs(before, after, touchedBy(delta), new UnchangedCache(), movedBy(delta));
    expect(diff.nodes.get('o1')!.status).toBe('moved');
    expect(diff.nodes.get('o2')!.status).toBe('modified');
  });

  test('a move into a new box marks the op modified and the box added', () => {
    const cursor = new StateCursor(trace());
    const [before, after] = cursor.around(2);
    const diff = diffGraphs(buildGraph(before), buildGraph(after), touchedBy(trace().steps[2].delta!));
    expect(diff.nodes.get('o5')).toMatchObject({ kind: 'box', status: 'added', parent: 'b1' });
    expect(diff.nodes.has('r2')).toBe(false); // one region: the op's box holds its block
    expect(diff.nodes.get('b2')).toMatchObject({ kind: 'block', status: 'added', parent: 'o5' });
    expect(diff.nodes.get('o4')).toMatchObject({ status: 'modified', parent: 'b2' });
    expect(diff.nodes.get('o6')!.status).toBe('added');
  });

  test('a value renumbered by an erased namesake is not a change', () => {
    const node = (label: string) => ({ id: 'o7', kind: 'op' as const, parent: 'b0', label, text: '%v7 = arith.muli %v1, %v2 : i32' });
    const before = { nodes: new Map([['o7', node('%a_ptrs_8 = arith.muli')]]), edges: new Map() };
    const after = { nodes: new Map([['o7', node('%a_ptrs_7 = arith.muli')]]), edges: new Map() };
    expect(diffGraphs(before, after).nodes.get('o7')!.status).toBe('unchanged');
  });

  test('graphs and diffs built along a trace, reusing what a step left alone, equal fresh ones', () => {
    const t = trace();
    const cursor = new StateCursor(t);
    const builder = new GraphBuilder();
    const cache = new UnchangedCache();
    const plain = (graph: ReturnType<typeof diffGraphs>): unknown => [[...graph.nodes.values()], [...graph.edges.values()]];
    // Forward, back and forward again: entries seen before come back.
    for (const step of [-1, 0, 1, 2, 1, 0, 1, 2, 3].filter(s => s < t.steps.length)) {
      const [before, after] = cursor.around(step);
      const touched = step >= 0 ? touchedBy(t.steps[step].delta ?? {}) : new Set<string>();
      const fresh = diffGraphs(buildGraph(before), buildGraph(after), touched);
      const reused = diffGraphs(builder.build(before), builder.build(after), touched, cache);
      expect([step, plain(reused)]).toEqual([step, plain(fresh)]);
      expect(builder.build(after)).toEqual(buildGraph(after));
    }
  });

  test('a graph built again for an unchanged state shares its node objects', () => {
    const state = new StateCursor(trace()).at(0);
    const builder = new GraphBuilder();
    const first = builder.build(state);
    const again = builder.build(state.clone());
    expect(again.nodes.get('o1')).toBe(first.nodes.get('o1'));
    const cache = new UnchangedCache();
    expect(diffGraphs(first, again, new Set(), cache).nodes.get('o1')).toBe(diffGraphs(first, again, new Set(), cache).nodes.get('o1'));
  });

  test('a step that changed nothing leaves everything unchanged', () => {
    const cursor = new StateCursor(trace());
    const [before, after] = cursor.around(0);
    const diff = diffGraphs(buildGraph(before), buildGraph(after));
    expect(countStatuses(diff)).toMatchObject({ added: 0, modified: 0, erased: 0 });
  });

  test('the IR text diff shows the replaced line', () => {
    const cursor = new StateCursor(trace());
    const [before, after] = cursor.around(1);
    const lines = diffLines(irLines(before), irLines(after));
    const changed = lines.filter(l => l.status !== 'unchanged').map(l => [l.status, l.text.trim(), l.op]);
    expect(changed).toEqual([
      ['erased', '%v1 = arith.addi %v0, %v0 : i32', 'o2'],
      ['erased', 'func.return %v1 : i32', 'o3'],
      ['added', '%v2 = arith.muli %v0, %v0 : i32', 'o4'],
      ['added', 'func.return %v2 : i32', 'o3']
    ]);
  });

  test('nested regions print in place', () => {
    const state = new StateCursor(trace()).at(2);
    expect(irLines(state).map(l => l.text)).toEqual([
      '"builtin.module"() ({',
      '  "func.func"() <{sym_name = "f"}> ({',
      '  ^b1(%v0: i32):',
      '    %v3 = "scf.execute_region"() ({',
      '      %v2 = arith.muli %v0, %v0 : i32',
      '      scf.yield %v2 : i32',
      '    }) : () -> i32',
      '    func.return %v3 : i32',
      '  }) : () -> ()',
      '}) : () -> ()'
    ]);
  });
});

describe('structural layout', () => {
  function graphAt(step: number): ReturnType<typeof diffGraphs> {
    const t = trace();
    const [before, after] = new StateCursor(t).around(step);
    return diffGraphs(buildGraph(before), buildGraph(after), step >= 0 ? touchedBy(t.steps[step].delta ?? {}) : new Set());
  }

  test('at every step, siblings never overlap, children lie in their box, ops run in program order', () => {
    const layout = new StructureLayout();
    for (let step = -1; step < trace().steps.length; step++) {
      const graph = graphAt(step);
      const frames = layout.frames(graph.nodes);
      expect(layoutProblems(graph.nodes, frames)).toEqual([]);
      expect([...frames.keys()].sort()).toEqual([...graph.nodes.keys()].sort());
    }
  });

  test('a step laid out ahead on a fork and adopted lays out as it would have, and the fork leaves the layout alone', () => {
    const direct = new StructureLayout();
    const ahead = new StructureLayout();
    for (let step = -1; step < trace().steps.length; step++) {
      const graph = graphAt(step);
      const want = direct.frames(graph.nodes);
      const fork = ahead.fork();
      const frames = fork.frames(graph.nodes);
      expect([step, frames]).toEqual([step, want]);
      const generation = ahead.generation;
      // Laying out on a fork does not touch the layout it came from.
      ahead.fork().frames(graph.nodes);
      expect(ahead.generation).toBe(generation);
      ahead.adopt(fork);
    }
    expect(ahead.frames(graphAt(0).nodes)).toEqual(direct.frames(graphAt(0).nodes));
  });

  test('a ghost is drawn where it was, between its old neighbours', () => {
    const graph = graphAt(1); // o2 (addi) is replaced by o4 (muli)
    const order = [...graph.nodes.keys()];
    expect(graph.nodes.get('o2')!.status).toBe('erased');
    expect(order.indexOf('o2')).toBeLessThan(order.indexOf('o3'));
    const frames = new StructureLayout().frames(graph.nodes);
    expect(frames.get('o2')!.y).toBeLessThan(frames.get('o3')!.y);
  });

  test('a collapsed box is one node hiding what it holds', () => {
    const layout = new StructureLayout();
    const graph = graphAt(-1);
    layout.collapsed.add('o1');
    const frames = layout.frames(graph.nodes);
    expect(frames.get('o1')!.hidden).toBe(4);
    expect(frames.has('o2')).toBe(false);
    layout.collapsed.delete('o1');
    expect(layout.frames(graph.nodes).has('o2')).toBe(true);
  });

  test('a short block that gains ops keeps them in one column, top to bottom', () => {
    const nodes = new Map<string, { id: string; kind: 'op' | 'block'; parent: string | null; label: string }>();
    nodes.set('b0', { id: 'b0', kind: 'block', parent: null, label: '^b0' });
    const layout = new StructureLayout();
    const ids: string[] = [];
    for (const label of ['cf.br', 'arith.select', 'tt.return']) {
      ids.push(`o${ids.length}`);
      nodes.set(ids[ids.length - 1], { id: ids[ids.length - 1], kind: 'op', parent: 'b0', label });
      const frames = layout.frames(nodes);
      const lefts = ids.map(id => frames.get(id)!.x - frames.get(id)!.width / 2);
      expect(new Set(lefts).size).toBe(1);
      const tops = ids.map(id => frames.get(id)!.y);
      expect(tops).toEqual([...tops].sort((a, b) => a - b));
    }
  });

  test('a long block wraps into columns and keeps its column length while it changes a little', () => {
    const nodes = new Map<string, { id: string; kind: 'op' | 'block'; parent: string | null; label: string }>();
    nodes.set('b0', { id: 'b0', kind: 'block', parent: null, label: '^b0' });
    for (let i = 0; i < 400; i++) {
      nodes.set(`o${i}`, { id: `o${i}`, kind: 'op', parent: 'b0', label: 'arith.addi' });
    }
    const layout = new StructureLayout();
    const frames = layout.frames(nodes);
    const columns = new Set([...frames.entries()].filter(([id]) => id !== 'b0').map(([, f]) => f.x));
    expect(columns.size).toBeGreaterThan(1);
    expect(layoutProblems(nodes, frames)).toEqual([]);
    nodes.delete('o399');
    const again = layout.frames(nodes);
    expect(again.get('o100')).toEqual(frames.get('o100'));
    // an op erased in the middle leaves a hole: the ops after it stay where they are
    nodes.delete('o50');
    const holed = layout.frames(nodes);
    expect(holed.get('o51')).toEqual(frames.get('o51'));
    expect(holed.get('o300')).toEqual(frames.get('o300'));
    expect(layoutProblems(nodes, holed)).toEqual([]);
  });
});

describe('lineage and the timeline filter', () => {
  test('lineage follows the replacement backward and forward', () => {
    const events = lineage(trace().steps, 'o4').map(e => [e.step, e.op, e.action]);
    expect(events).toEqual([
      [1, 'o4', 'created'],
      [1, 'o2', 'replaced'],
      [1, 'o2', 'erased'],
      [2, 'o4', 'moved']
    ]);
  });

  test('hide-unchanged keeps flagged steps; search matches pattern, pass, op name, op id and value', () => {
    const t = trace();
    const index = new StepIndex(t);
    const keep = (filter: Partial<TimelineFilter>): number[] =>
      t.steps
        .filter(s => stepMatches(s, { changedOnly: false, hideBookkeeping: false, search: '', ...filter }, index))
        .map(s => s.index);
    expect(keep({ changedOnly: true })).toEqual([1, 2, 3]);
    expect(keep({ search: 'wrap' })).toEqual([2]);
    expect(keep({ search: 'TEST-PASS' })).toEqual([0, 1, 2, 3, 4]);
    expect(keep({ search: 'arith.muli' })).toEqual([1, 2]);
    expect(keep({ search: 'o4' })).toEqual([1, 2]);
    expect(keep({ search: '%v2' })).toEqual([1, 2]);
    expect(keep({ search: 'o' + '44' })).toEqual([]);
  });

  test('automatic step names name their op and the value it became', () => {
    const t = trace();
    const step = { ...t.steps[1], name: 'fold' };
    expect(stepLabel(step, t.opNames)).toBe('fold arith.addi → %v2');
    expect(stepLabel({ ...t.steps[1], name: 'erase-dead-op', delta: {} }, t.opNames)).toBe('erase-dead-op arith.addi');
    expect(t.label(1)).toBe('AddToMul');
  });

  test('bookkeeping steps are the ones that only keep the books', () => {
    const t = trace();
    expect(isBookkeeping({ ...t.steps[1], name: 'unique-constant' })).toBe(true);
    expect(isBookkeeping({ ...t.steps[1], name: 'fold' })).toBe(false);
    expect(isBookkeeping({ ...t.steps[1], name: 'fold', delta: {} })).toBe(true);
    expect(isBookkeeping({ ...t.steps[1], name: 'erase-dead-op', flag: { kind: 'exception', message: 'x' } })).toBe(false);
  });
});

describe('attribute values as the IR prints them', () => {
  test('an enum the op spells by name shows its name', () => {
    const text = '%v88 = tt.dot %v35, %v57, %v5, inputPrecision = tf32 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>';
    expect(shownValue(text, 'inputPrecision', '0 : i32')).toBe('tf32  (0 : i32)');
    expect(shownValue('%v3 = tt.expand_dims %v1 {axis = 1 : i32} : tensor<16xi32>', 'axis', '1 : i32')).toBe('1 : i32');
    expect(shownValue('%v3 = arith.cmpi slt, %v1, %v2 : i32', 'predicate', '2 : i64')).toBe('2 : i64');
  });
});

describe('layout aliases', () => {
  test('blocked layouts print by alias, numbered in order of first use, nested ones included', () => {
    const a = '#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>';
    const b = '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>';
    const lines = [
      `%v1 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, ${a}>`,
      `%v2 = tt.expand_dims %v1 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = ${b}}>> -> tensor<128x1xi32, ${b}>`,
      `%v3 = tt.splat %v0 : i32 -> tensor<128xi32, ${a}>`
    ];
    const aliases = layoutAliases(lines);
    expect(aliases.definitions).toEqual([`#blocked = ${a}`, `#blocked1 = ${b}`]);
    expect(aliases.apply(lines[1])).toBe(
      '%v2 = tt.expand_dims %v1 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<128x1xi32, #blocked1>'
    );
    expect(aliases.apply(lines[2])).toBe('%v3 = tt.splat %v0 : i32 -> tensor<128xi32, #blocked>');
    expect(layoutAliases(['%v0 = arith.constant 1 : i32']).definitions).toEqual([]);
  });
});
