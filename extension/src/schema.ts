/**
 * The trace file's records, as `passviz/trace/trace.schema.json` describes them.
 *
 * A trace is untrusted input: every string here is shown as text, never as HTML.
 */

/** An SSA value: an op result or a block argument. */
export interface ValueInfo {
  id: string;
  type: string;
  name?: string;
}

/** Everything needed to re-create an operation that a step created. */
export interface OpInfo {
  id: string;
  name: string;
  operands: string[];
  results: ValueInfo[];
  successors?: string[];
  attrs?: Record<string, string>;
  props?: Record<string, string>;
  regions?: string[];
  loc?: string;
}

/** The fields of an existing operation that a step changed (new values). */
export interface OpChange {
  id: string;
  operands?: string[];
  results?: ValueInfo[];
  successors?: string[];
  attrs?: Record<string, string>;
  props?: Record<string, string>;
  regions?: string[];
  loc?: string;
}

/** Where an op now sits: in `block` right after `after` (null: first). */
export interface Placement {
  id: string;
  block: string;
  after: string | null;
}

export interface BlockInfo {
  id: string;
  args: ValueInfo[];
  name?: string;
}

export interface Replacement {
  op: string;
  values: Array<[string | null, string | null]>;
  by: string[];
}

/** Everything one step changed; absent keys mean "nothing of that kind". */
export interface Delta {
  ops_created?: OpInfo[];
  ops_erased?: string[];
  ops_modified?: OpChange[];
  ops_moved?: string[];
  placed?: Placement[];
  blocks_created?: BlockInfo[];
  blocks_erased?: string[];
  blocks_moved?: string[];
  blocks_split?: Array<{ block: string; source: string }>;
  blocks_merged?: Array<{ block: string; into: string }>;
  block_args?: Record<string, ValueInfo[]>;
  block_names?: Record<string, string | null>;
  args_added?: string[];
  args_removed?: string[];
  region_blocks?: Record<string, string[]>;
  replaced?: Replacement[];
  texts?: Record<string, string>;
}

export type FlagKind = 'exception' | 'verify' | 'nonconvergence';

export interface Flag {
  kind: FlagKind;
  message: string;
  detail?: string;
  cycle?: string[];
}

/** The initial module as a delta that creates it from nothing. */
export interface InitialState {
  root: string;
  delta: Delta;
}

export interface TraceMeta {
  input: string;
  pipeline: string;
  passviz_version: string;
  xdsl_version: string;
  verify_each: 'off' | 'pass' | 'rewrite';
  /** The syntax versions the IR texts are written in (`{triton: '3.9'}`). */
  syntax?: Record<string, string>;
  /** The attributes printed by alias: how each one's text begins, and its alias (`{'#ttg.blocked<': 'blocked'}`). */
  aliases?: Record<string, string>;
  /** The ops a dispatch graph is drawn from; a trace without it has no dispatch graph. */
  dispatch?: DispatchVocabulary;
  /** Set when the trace was imported from a compiler's IR dump (`passviz import`), not recorded. */
  imported?: ImportInfo;
}

/** Where an imported trace's IR came from: a compiler's IR-printing output. */
export interface ImportInfo {
  /** The dump file (or `--mlir-print-ir-tree-dir` folder) the trace was read from. */
  dump: string;
  /** What the dump printed around each pass: `before`, `after` or `after+before`. */
  printing: string;
  /** What the dump lacks or what was left out. */
  notes?: string[];
  /**
   * What the compile made after its MLIR passes, stage by stage (`passviz triton`: LLVM IR, PTX, SASS);
   * with `--llvm-passes`, LLVM's IR after each of its own passes too (`llvm: PASS`), between them.
   */
  outputs?: StageOutput[];
  /** The GPU binary the compile built and how Triton launches it (`passviz run --gpu` runs it). */
  kernel?: CompiledKernel;
}

/** A compile's GPU binary and its launch metadata, as Triton gives them. */
export interface CompiledKernel {
  /** The kernel's symbol in the binary. */
  name: string;
  /** The GPU it was built for (`cuda:90`). */
  target: string;
  /** The binary (a cubin), base64. */
  binary: string;
  /** Each argument the launch passes, in order, and its Triton type: the constexprs are compiled in. */
  signature: Record<string, string>;
  num_warps: number;
  num_ctas: number;
  /** Dynamic shared memory per program, in bytes. */
  shared: number;
  global_scratch_size: number;
  global_scratch_align: number;
  profile_scratch_size: number;
  profile_scratch_align: number;
  cooperative: boolean;
  pdl: boolean;
  triton_version: string;
}

/** A compile stage's output that is text but no MLIR (LLVM IR, PTX, SASS). */
export interface StageOutput {
  /** The stage as the compiler names it (`llir`, `ptx`, `sass`). */
  stage: string;
  /** Its output, as the compiler wrote it. */
  text: string;
}

/**
 * The ops that play each part of a dispatch graph (IREE's `--iree-flow-dump-dispatch-graph`), as
 * the family that defines one names them (`passviz.compilers.family.DispatchHints`).
 */
export interface DispatchVocabulary {
  /** The ops that are one dispatch each. */
  dispatch_ops: string[];
  /** The functions at the top of the module whose bodies the graph draws. */
  function_ops: string[];
  /** Their returns. */
  return_ops: string[];
  /** Ops in a dispatch that move its tensors in and out rather than compute: no member of it. */
  plumbing_ops: string[];
  /** Ops besides functions whose bodies a dispatch's or executable's members are looked for in. */
  container_ops: string[];
  /** The op an outlined dispatch calls. */
  executable_op: string;
  /** The outlined dispatch, calling an executable. */
  call_op: string;
  /** The call's attribute naming what it calls (`[@executable::@entry]`). */
  entry_points: string;
}

export interface HeaderRecord {
  record: 'header';
  format: 'passviz-trace';
  /** 2 stores the initial IR once, as `initial`; 1 (still read) also as MLIR text, `initial_ir`. */
  version: 1 | 2;
  meta: TraceMeta;
  /** Version 1 only: the initial IR as MLIR text (the viewer draws from `initial`). */
  initial_ir?: string;
  /** The source files the IR's locations name, by file name, as read at record time. */
  sources?: Record<string, string>;
  initial?: InitialState;
}

export type StepKind = 'pass-begin' | 'pass-end' | 'rewrite' | 'checkpoint' | 'failure';

export interface StepRecord {
  index: number;
  kind: StepKind;
  pass?: string;
  pass_index?: number;
  name?: string;
  root?: string;
  delta?: Delta;
  flag?: Flag;
  /** The pointer offset chain the step folded: op ids from the base pointer to the access. */
  chain?: string[];
  /** The dispatch regions after the step: each region op's id, then its member ops' ids. */
  dispatch?: string[][];
}

export interface EndRecord {
  record: 'end';
  status: 'ok' | 'failed';
  steps: number;
}

export type Verdict = 'same' | 'differs' | 'error';

/** One output element a run got differently from the reference (NaN and infinities as strings). */
export interface RunDifference {
  buffer: string;
  index: number;
  expected: number | string | boolean;
  got: number | string | boolean;
}

/**
 * One execution of the kernel at a step, against the initial IR's run on the
 * same inputs.  Run records follow the end record (or the last step).
 */
export interface RunRecord {
  record: 'run';
  /** The step whose IR ran; -1 is the initial IR. */
  step: number;
  backend: 'cpu' | 'gpu';
  origin?: 'run' | 'bisect';
  /** True on the first differing step a bisect found. */
  first?: boolean;
  /** What the verdict compares with: the initial IR's run (absent: this), or the CPU's of the same step. */
  reference?: 'initial' | 'cpu';
  /** A digest of the arguments and grid. */
  inputs: string;
  /** The inputs as --arg specs, grid and seed. */
  spec?: string;
  /** A digest of the buffers written (absent when the run failed). */
  outputs?: string;
  verdict: Verdict;
  max_error?: number;
  count?: number;
  differences?: RunDifference[];
  device?: string;
  time_ms?: number;
  gbps?: number;
  message?: string;
}

export type TraceRecord = HeaderRecord | StepRecord | EndRecord | RunRecord;

/** The data of the `application/vnd.passviz.trace+json` MIME type. */
export interface TraceDocument {
  format: 'passviz-trace';
  version: 1 | 2;
  records: TraceRecord[];
}

export const TRACE_MIME_TYPE = 'application/vnd.passviz.trace+json';
