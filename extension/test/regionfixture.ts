/**
 * A small trace shaped like the ones passviz records through IREE's
 * form-dispatch-regions: a function computes a matmul and a generic on its
 * argument; the pass wraps the generic into a `flow.dispatch.region`, then
 * moves the matmul into it, each step recording the dispatch regions after it
 * (`Step.dispatch`); a `cse` pass that changes nothing follows.
 */

import type { DispatchVocabulary, HeaderRecord, StepRecord, TraceDocument } from '../src/schema';

/** IREE's dispatch vocabulary as passviz records it (`meta.dispatch`, `passviz/compilers/iree/family.py`). */
export const IREE_DISPATCH: DispatchVocabulary = {
  dispatch_ops: ['flow.dispatch.region', 'flow.dispatch.workgroups', 'flow.dispatch'],
  function_ops: ['util.func', 'func.func'],
  return_ops: ['util.return', 'func.return'],
  plumbing_ops: [
    'flow.return',
    'flow.dispatch.workgroup_count_from_dag_root',
    'flow.dispatch.workgroup_count_from_slice',
    'iree_tensor_ext.dispatch.tensor.load',
    'iree_tensor_ext.dispatch.tensor.store',
    'iree_tensor_ext.dispatch.workload.ordinal',
    'flow.dispatch.tensor.load',
    'flow.dispatch.tensor.store',
    'tensor.empty',
    'func.return',
    'linalg.yield'
  ],
  container_ops: ['builtin.module', 'flow.executable.export'],
  executable_op: 'flow.executable',
  call_op: 'flow.dispatch',
  entry_points: 'entry_points'
};

const T = 'tensor<4xf32>';

export const FORM = 'iree-dispatch-creation-form-dispatch-regions';

export function regionHeader(): HeaderRecord {
  return {
    record: 'header',
    format: 'passviz-trace',
    version: 2,
    meta: { input: 'mm.mlir', pipeline: 'iree-flow', passviz_version: '0.1.0', xdsl_version: '0.74.0', verify_each: 'pass', dispatch: IREE_DISPATCH },
    initial: {
      root: 'o0',
      delta: {
        blocks_created: [
          { id: 'b0', args: [] },
          { id: 'b1', args: [{ id: 'v0', type: T, name: 'x' }] }
        ],
        ops_created: [
          { id: 'o0', name: 'builtin.module', operands: [], results: [], regions: ['r0'] },
          { id: 'o1', name: 'util.func', operands: [], results: [], regions: ['r1'], props: { sym_name: '"f"', function_type: `(${T}) -> ${T}` } },
          { id: 'o2', name: 'linalg.matmul', operands: ['v0', 'v0'], results: [{ id: 'v1', type: T, name: 'mm' }] },
          { id: 'o3', name: 'linalg.generic', operands: ['v1'], results: [{ id: 'v2', type: T, name: 'g' }] },
          { id: 'o4', name: 'util.return', operands: ['v2'], results: [] }
        ],
        region_blocks: { r0: ['b0'], r1: ['b1'] },
        placed: [
          { id: 'o1', block: 'b0', after: null },
          { id: 'o2', block: 'b1', after: null },
          { id: 'o3', block: 'b1', after: 'o2' },
          { id: 'o4', block: 'b1', after: 'o3' }
        ],
        texts: {
          o0: '"builtin.module"() ({...}) : () -> ()',
          o1: `util.func @f(%v0 : ${T}) -> ${T} {...}`,
          o2: `%v1 = linalg.matmul %v0, %v0 : ${T}`,
          o3: `%v2 = linalg.generic %v1 : ${T}`,
          o4: `util.return %v2 : ${T}`
        }
      }
    }
  };
}

export function regionSteps(): StepRecord[] {
  return [
    { index: 0, kind: 'pass-begin', pass: FORM, pass_index: 0 },
    {
      index: 1,
      kind: 'rewrite',
      pass: FORM,
      pass_index: 0,
      name: 'WrapInDispatchRegion: dispatch 0',
      root: 'o3',
      delta: {
        blocks_created: [{ id: 'b2', args: [] }],
        ops_created: [
          { id: 'o5', name: 'flow.dispatch.region', operands: [], results: [{ id: 'v3', type: T }], regions: ['r2'] },
          { id: 'o6', name: 'flow.return', operands: ['v2'], results: [] }
        ],
        region_blocks: { r2: ['b2'] },
        placed: [
          { id: 'o5', block: 'b1', after: 'o2' },
          { id: 'o3', block: 'b2', after: null },
          { id: 'o6', block: 'b2', after: 'o3' }
        ],
        ops_moved: ['o3'],
        ops_modified: [{ id: 'o4', operands: ['v3'] }],
        texts: {
          o5: `%v3 = flow.dispatch.region -> (${T}) {...}`,
          o6: `flow.return %v2 : ${T}`,
          o4: `util.return %v3 : ${T}`
        }
      },
      dispatch: [['o5', 'o3']]
    },
    {
      index: 2,
      kind: 'rewrite',
      pass: FORM,
      pass_index: 0,
      name: 'MoveIntoDispatchRegion: dispatch 0',
      root: 'o2',
      delta: { placed: [{ id: 'o2', block: 'b2', after: null }], ops_moved: ['o2'] },
      dispatch: [['o5', 'o2', 'o3']]
    },
    { index: 3, kind: 'pass-end', pass: FORM, pass_index: 0 },
    { index: 4, kind: 'pass-begin', pass: 'cse', pass_index: 1 },
    { index: 5, kind: 'pass-end', pass: 'cse', pass_index: 1 }
  ];
}

export function regionTrace(): TraceDocument {
  return {
    format: 'passviz-trace',
    version: 2,
    records: [regionHeader(), ...regionSteps(), { record: 'end', status: 'ok', steps: 6 }]
  };
}
