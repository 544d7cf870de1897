/**
 * @jest-environment node
 */
import { countStatuses, diffGraphs, touchedBy } from '../src/model/diff';
import { buildGraph } from '../src/model/graph';
import { diffLines, irLines } from '../src/model/irtext';
import { LayoutMemory, leafIds, neighbourMap, nodeSize, programOrderLayout, type Point } from '../src/model/layout';
import { lineage } from '../src/model/lineage';
import { ReplayError } from '../src/model/state';
import { StateCursor, Trace, readRecords, stepCounts } from '../src/model/trace';
import { stepMatches } from '../src/view/timeline';
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
    expect(() => Trace.from('{"record": "header"}\nnot json')).toThrow(/line 2: not JSON/);
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
    expect(countStatuses(diff)).toEqual({ added: 1, modified: 1, erased: 1, unchanged: 5 }); // o0 o1 b0 b1 v0
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
      '  ^b1(%v0 : i32):',
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

describe('positions across steps', () => {
  function graphAt(step: number): ReturnType<typeof diffGraphs> {
    const cursor = new StateCursor(trace());
    const [before, after] = cursor.around(step);
    const t = trace();
    return diffGraphs(buildGraph(before), buildGraph(after), step >= 0 ? touchedBy(t.steps[step].delta ?? {}) : new Set());
  }

  function overlaps(a: Point, b: Point, sa: { width: number; height: number }, sb: { width: number; height: number }): boolean {
    return Math.abs(a.x - b.x) * 2 < sa.width + sb.width && Math.abs(a.y - b.y) * 2 < sa.height + sb.height;
  }

  test('the program-order layout places every leaf without overlaps', () => {
    const graph = graphAt(-1);
    const positions = programOrderLayout(graph.nodes);
    const leaves = leafIds(graph.nodes.values());
    expect(leaves.sort()).toEqual(['o2', 'o3', 'v0']);
    expect([...positions.keys()].sort()).toEqual(expect.arrayContaining(leaves));
    expect(positions.get('o3')!.y).toBeGreaterThan(positions.get('o2')!.y);
  });

  test('nodes that persist keep their positions; new ones land on free spots near their siblings', () => {
    const memory = new LayoutMemory();
    const first = graphAt(-1);
    memory.seed(first.nodes, programOrderLayout(first.nodes));
    const o3 = { ...memory.get('o3')! };
    const o2 = { ...memory.get('o2')! };
    const v0 = { ...memory.get('v0')! };

    for (const step of [0, 1, 2, 3, 4]) {
      const graph = graphAt(step);
      memory.place(graph.nodes, neighbourMap(graph.edges.values()));
      const at = (id: string): Point | undefined => memory.positionOf(graph.nodes.get(id)!);
      expect(at('o3')).toEqual(o3);
      expect(at('v0')).toEqual(v0);
      if (step === 1) {
        expect(at('o2')).toEqual(o2); // the ghost keeps its place
      }
      const leaves = leafIds(graph.nodes.values());
      for (const id of leaves) {
        expect(at(id)).toBeDefined();
      }
      for (const a of leaves) {
        for (const b of leaves) {
          if (a < b) {
            const clash = overlaps(at(a)!, at(b)!, nodeSize(graph.nodes.get(a)!), nodeSize(graph.nodes.get(b)!));
            expect(clash ? `${a} overlaps ${b} at step ${step}` : 'ok').toBe('ok');
          }
        }
      }
    }
  });

  test('a new op goes next to its sibling; a moved op is placed anew in its new box', () => {
    const memory = new LayoutMemory();
    const first = graphAt(-1);
    memory.seed(first.nodes, programOrderLayout(first.nodes));
    const o2 = memory.get('o2')!;
    const step1 = graphAt(1);
    memory.place(step1.nodes, neighbourMap(step1.edges.values()));
    const o4 = memory.positionOf(step1.nodes.get('o4')!)!;
    expect(Math.hypot(o4.x - o2.x, o4.y - o2.y)).toBeLessThan(150);
    const step2 = graphAt(2);
    expect(step2.nodes.get('o4')!.parent).toBe('b2');
    expect(memory.positionOf(step2.nodes.get('o4')!)).toBeUndefined();
    expect(memory.place(step2.nodes, neighbourMap(step2.edges.values()))).toEqual(expect.arrayContaining(['o4', 'o6']));
    expect(memory.positionOf(step2.nodes.get('o4')!)).not.toEqual(o4);
    // back at step 1, o4 is in b1 again and finds its old spot
    expect(memory.positionOf(step1.nodes.get('o4')!)).toEqual(o4);
  });

  test('placing is idempotent: a second visit moves nothing', () => {
    const memory = new LayoutMemory();
    const first = graphAt(-1);
    memory.seed(first.nodes, programOrderLayout(first.nodes));
    const graph = graphAt(2);
    memory.place(graph.nodes);
    const before = [...graph.nodes.values()].map(n => memory.positionOf(n));
    expect(memory.place(graph.nodes)).toEqual([]);
    expect([...graph.nodes.values()].map(n => memory.positionOf(n))).toEqual(before);
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

  test('hide-unchanged keeps flagged steps; search matches pattern or pass', () => {
    const t = trace();
    const keep = (filter: { changedOnly: boolean; search: string }): number[] =>
      t.steps.filter(s => stepMatches(s, t.passNames[s.index], filter)).map(s => s.index);
    expect(keep({ changedOnly: true, search: '' })).toEqual([1, 2, 3]);
    expect(keep({ changedOnly: false, search: 'wrap' })).toEqual([2]);
    expect(keep({ changedOnly: false, search: 'TEST-PASS' })).toEqual([0, 1, 2, 3, 4]);
  });
});
