/**
 * A small trace built by hand, shaped like the ones passviz records: a
 * function whose `addi` a rewrite replaces by a `muli`, then a step that wraps
 * the body into an `scf.execute_region`.
 */

import type { HeaderRecord, StepRecord, TraceRecord } from '../src/schema';

export function header(): HeaderRecord {
  return {
    record: 'header',
    format: 'passviz-trace',
    version: 2,
    meta: { input: 'f.mlir', pipeline: 'test', passviz_version: '0.1.0', xdsl_version: '0.74.0', verify_each: 'pass' },
    initial: {
      root: 'o0',
      delta: {
        blocks_created: [
          { id: 'b0', args: [] },
          { id: 'b1', args: [{ id: 'v0', type: 'i32' }] }
        ],
        ops_created: [
          { id: 'o0', name: 'builtin.module', operands: [], results: [], regions: ['r0'] },
          { id: 'o1', name: 'func.func', operands: [], results: [], regions: ['r1'], props: { sym_name: '"f"' } },
          { id: 'o2', name: 'arith.addi', operands: ['v0', 'v0'], results: [{ id: 'v1', type: 'i32' }], loc: 'loc("f.mlir":3:5)' },
          { id: 'o3', name: 'func.return', operands: ['v1'], results: [] }
        ],
        region_blocks: { r0: ['b0'], r1: ['b1'] },
        placed: [
          { id: 'o1', block: 'b0', after: null },
          { id: 'o2', block: 'b1', after: null },
          { id: 'o3', block: 'b1', after: 'o2' }
        ],
        texts: {
          o0: '"builtin.module"() ({...}) : () -> ()',
          o1: '"func.func"() <{sym_name = "f"}> ({...}) : () -> ()',
          o2: '%v1 = arith.addi %v0, %v0 : i32',
          o3: 'func.return %v1 : i32'
        }
      }
    }
  };
}

export function steps(): StepRecord[] {
  return [
    { index: 0, kind: 'pass-begin', pass: 'test-pass', pass_index: 0 },
    {
      index: 1,
      kind: 'rewrite',
      name: 'AddToMul',
      root: 'o2',
      delta: {
        ops_created: [{ id: 'o4', name: 'arith.muli', operands: ['v0', 'v0'], results: [{ id: 'v2', type: 'i32' }] }],
        placed: [{ id: 'o4', block: 'b1', after: null }],
        ops_modified: [{ id: 'o3', operands: ['v2'] }],
        ops_erased: ['o2'],
        replaced: [{ op: 'o2', values: [['v1', 'v2']], by: ['o4'] }],
        texts: { o4: '%v2 = arith.muli %v0, %v0 : i32', o3: 'func.return %v2 : i32' }
      }
    },
    {
      index: 2,
      kind: 'rewrite',
      name: 'WrapInRegion',
      root: 'o4',
      chain: ['o4', 'o5'],
      delta: {
        blocks_created: [{ id: 'b2', args: [] }],
        ops_created: [
          { id: 'o5', name: 'scf.execute_region', operands: [], results: [{ id: 'v3', type: 'i32' }], regions: ['r2'] },
          { id: 'o6', name: 'scf.yield', operands: ['v2'], results: [] }
        ],
        region_blocks: { r2: ['b2'] },
        placed: [
          { id: 'o5', block: 'b1', after: null },
          { id: 'o4', block: 'b2', after: null },
          { id: 'o6', block: 'b2', after: 'o4' }
        ],
        ops_moved: ['o4'],
        ops_modified: [{ id: 'o3', operands: ['v3'] }],
        texts: {
          o5: '%v3 = "scf.execute_region"() ({...}) : () -> i32',
          o6: 'scf.yield %v2 : i32',
          o3: 'func.return %v3 : i32'
        }
      }
    },
    {
      index: 3,
      kind: 'failure',
      name: 'Broken',
      root: 'o3',
      flag: { kind: 'exception', message: 'boom <img src=x onerror=alert(1)>', detail: 'Traceback ...' }
    },
    { index: 4, kind: 'pass-end', pass: 'test-pass', pass_index: 0 }
  ];
}

export function records(): TraceRecord[] {
  return [header(), ...steps(), { record: 'end', status: 'failed', steps: 5 }];
}
