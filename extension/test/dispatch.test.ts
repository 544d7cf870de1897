/**
 * The dispatch graph model (`src/model/dispatch.ts`) on a small module built
 * by hand: a dispatch region that captures a function argument, a
 * `flow.dispatch` that reads the region's result and calls an executable.
 * (`test/golden.test.ts` checks it against Python on recorded traces.)
 */

import { callPartners, dispatchGraph, dispatchVocabulary } from '../src/model/dispatch';
import { IRState } from '../src/model/state';
import { IREE_DISPATCH } from './regionfixture';

function module(): IRState {
  const state = new IRState('o0');
  state.apply({
    blocks_created: [
      { id: 'b0', args: [] },
      { id: 'b1', args: [{ id: 'v0', type: 'tensor<4xf32>' }] },
      { id: 'b2', args: [] },
      { id: 'b3', args: [] }
    ],
    ops_created: [
      { id: 'o0', name: 'builtin.module', operands: [], results: [], regions: ['r0'] },
      { id: 'o1', name: 'flow.executable', operands: [], results: [], regions: ['r3'], props: { sym_name: '"ex"' } },
      { id: 'o9', name: 'linalg.generic', operands: [], results: [] },
      { id: 'o2', name: 'util.func', operands: [], results: [], regions: ['r1'], props: { sym_name: '"f"' } },
      { id: 'o3', name: 'arith.constant', operands: [], results: [{ id: 'v1', type: 'f32' }], props: { value: '1.000000e+00 : f32' } },
      { id: 'o4', name: 'flow.dispatch.region', operands: [], results: [{ id: 'v2', type: 'tensor<4xf32>' }], regions: ['r2'] },
      { id: 'o5', name: 'linalg.matmul', operands: ['v0', 'v1'], results: [{ id: 'v3', type: 'tensor<4xf32>' }] },
      { id: 'o6', name: 'flow.return', operands: ['v3'], results: [] },
      { id: 'o7', name: 'flow.dispatch', operands: ['v2'], results: [{ id: 'v4', type: 'tensor<4xf32>' }], props: { entry_points: '[@ex::@ex]' } },
      { id: 'o8', name: 'util.return', operands: ['v4'], results: [] }
    ],
    region_blocks: { r0: ['b0'], r1: ['b1'], r2: ['b2'], r3: ['b3'] },
    placed: [
      { id: 'o1', block: 'b0', after: null },
      { id: 'o2', block: 'b0', after: 'o1' },
      { id: 'o9', block: 'b3', after: null },
      { id: 'o3', block: 'b1', after: null },
      { id: 'o4', block: 'b1', after: 'o3' },
      { id: 'o5', block: 'b2', after: null },
      { id: 'o6', block: 'b2', after: 'o5' },
      { id: 'o7', block: 'b1', after: 'o4' },
      { id: 'o8', block: 'b1', after: 'o7' }
    ]
  });
  return state;
}

describe('the dispatch graph', () => {
  test('a region is one node taking the tensors it captures; constants are left out', () => {
    const graph = dispatchGraph(module(), IREE_DISPATCH);
    expect([...graph.nodes.values()].map(n => [n.id, n.kind, n.parent, n.label, n.members])).toEqual([
      ['o1', 'executable', null, 'flow.executable @ex', ['o9']],
      ['o2', 'func', null, 'util.func @f', []],
      ['v0', 'arg', 'o2', '%v0: tensor<4xf32>', []],
      ['o4', 'dispatch', 'o2', 'flow.dispatch.region #0', ['o5']],
      ['o7', 'dispatch', 'o2', 'flow.dispatch @ex::@ex', []],
      ['o8', 'return', 'o2', 'util.return', []]
    ]);
    expect([...graph.edges.values()].map(e => [e.kind, e.source, e.target, e.label])).toEqual([
      ['tensor', 'v0', 'o4', 'tensor<4xf32>'],
      ['tensor', 'o4', 'o7', 'tensor<4xf32>'],
      ['tensor', 'o7', 'o8', 'tensor<4xf32>'],
      ['calls', 'o7', 'o1', '']
    ]);
  });

  test('a flow.dispatch and its executable are each other\'s call partners', () => {
    const state = module();
    expect(callPartners(state, 'o7', IREE_DISPATCH)).toEqual(['o1']);
    expect(callPartners(state, 'o1', IREE_DISPATCH)).toEqual(['o7']);
    expect(callPartners(state, 'o5', IREE_DISPATCH)).toEqual([]);
  });

  test('the ops that play each part are the trace\'s: none, no graph; others, another graph', () => {
    const state = module();
    expect(dispatchGraph(state, null).nodes.size).toBe(0);
    expect(callPartners(state, 'o7', null)).toEqual([]);
    // Another vocabulary: flow's ops are no dispatches (linalg.matmul is, none at the top here) and nothing calls.
    const other = { ...IREE_DISPATCH, function_ops: ['util.func'], dispatch_ops: ['linalg.matmul'], call_op: 'none.call' };
    const graph = dispatchGraph(state, other);
    expect([...graph.nodes.values()].filter(n => n.kind === 'dispatch').map(n => n.id)).toEqual([]);
    expect([...graph.nodes.values()].map(n => [n.id, n.kind])).toEqual([
      ['o1', 'executable'],
      ['o2', 'func'],
      ['v0', 'arg'],
      ['o4', 'op'],
      ['o7', 'op'],
      ['o8', 'return']
    ]);
    expect([...graph.edges.values()].filter(e => e.kind === 'calls')).toEqual([]);
  });

  test('a header\'s meta.dispatch is read only when it is one', () => {
    expect(dispatchVocabulary(IREE_DISPATCH)).toBe(IREE_DISPATCH);
    expect(dispatchVocabulary(undefined)).toBeNull();
    expect(dispatchVocabulary([])).toBeNull();
    expect(dispatchVocabulary({ ...IREE_DISPATCH, dispatch_ops: 'flow.dispatch' })).toBeNull();
    expect(dispatchVocabulary({ ...IREE_DISPATCH, call_op: 3 })).toBeNull();
  });
});
