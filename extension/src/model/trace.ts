/**
 * A trace document read from untrusted JSON: records checked for the shape the
 * viewer relies on, steps grouped by pass, and the IR state at any step.
 */

import type {
  HeaderRecord,
  InitialState,
  RunRecord,
  StepRecord,
  TraceRecord
} from '../schema';
import { IRState } from './state';
import { opNames, stepLabel } from './steps';

/** A trace that cannot be shown, with a message a person can act on. */
export class TraceError extends Error {}

/** One pass of the pipeline and the steps recorded inside it. */
export interface PassGroup {
  name: string;
  passIndex: number | null;
  /** Indices into `Trace.steps`. */
  steps: number[];
  flagged: boolean;
}

const STEP_KINDS = new Set(['pass-begin', 'pass-end', 'rewrite', 'checkpoint', 'failure']);
const ID = /^[obrv][0-9]+$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The records of a trace given as NDJSON text, a JSON array, or the MIME data object. */
export function readRecords(data: unknown): TraceRecord[] {
  if (typeof data === 'string') {
    return readText(data);
  }
  if (Array.isArray(data)) {
    return data as TraceRecord[];
  }
  if (isObject(data) && Array.isArray(data.records)) {
    return data.records as TraceRecord[];
  }
  throw new TraceError('not a passviz trace: expected NDJSON records or {"records": [...]}');
}

/** A trace file's text: one JSON document (the MIME data), or NDJSON, one record a line. */
function readText(text: string): TraceRecord[] {
  const whole = tryJson(text);
  if (whole !== undefined) {
    return isObject(whole) && whole.record === 'header' ? [whole as unknown as TraceRecord] : readRecords(whole);
  }
  const records: TraceRecord[] = [];
  const lines = text.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && lines[last].trim().length === 0) {
    last -= 1;
  }
  lines.forEach((line, index) => {
    if (line.trim().length === 0) {
      return;
    }
    // A run that was killed leaves its last line cut short: like passviz's
    // Python reader, keep every record before it (the trace reads as incomplete).
    if (index === last && index > 0 && tryJson(line) === undefined) {
      return;
    }
    records.push(parseJson(line, index + 1) as TraceRecord);
  });
  return records;
}

/** The text as one JSON value, or undefined when it is not one (NDJSON fails at its second record). */
function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function parseJson(text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TraceError(`line ${line}: not JSON: ${(error as Error).message}`);
  }
}

function checkHeader(record: TraceRecord | undefined): HeaderRecord {
  if (!isObject(record) || record.record !== 'header' || record.format !== 'passviz-trace') {
    throw new TraceError('not a passviz trace: the first record is not a passviz-trace header');
  }
  if (record.version !== 1 && record.version !== 2) {
    throw new TraceError(`unsupported trace version ${String(record.version)}`);
  }
  const initial = (record as HeaderRecord).initial;
  if (!isObject(initial) || typeof initial.root !== 'string' || !isObject(initial.delta)) {
    throw new TraceError(
      'this trace has no structured initial IR (header.initial); ' +
        're-record it, or open it through passviz, which adds it'
    );
  }
  return record as HeaderRecord;
}

function checkStep(record: unknown, position: number): StepRecord {
  if (
    !isObject(record) ||
    typeof record.index !== 'number' ||
    typeof record.kind !== 'string' ||
    !STEP_KINDS.has(record.kind)
  ) {
    throw new TraceError(`record ${position + 1}: not a step record`);
  }
  if (record.index !== position) {
    throw new TraceError(`record ${position + 1}: step index ${record.index} is out of order`);
  }
  if (record.delta !== undefined && !isObject(record.delta)) {
    throw new TraceError(`step ${position}: its delta is not an object`);
  }
  if (record.chain !== undefined) {
    const chain = record.chain;
    if (!Array.isArray(chain) || !chain.every(id => typeof id === 'string' && ID.test(id))) {
      throw new TraceError(`step ${position}: its chain is not a list of op ids`);
    }
  }
  return record as unknown as StepRecord;
}

const VERDICTS = new Set(['same', 'differs', 'error']);

function isRun(record: unknown): boolean {
  return isObject(record) && record.record === 'run';
}

/**
 * A run record checked for the fields the viewer reads; `position` is its
 * place among the records (the header is 0), `steps` how many steps the trace has.
 */
function checkRun(record: unknown, position: number, steps: number): RunRecord {
  const run = record as Record<string, unknown>;
  const step = run.step;
  if (typeof step !== 'number' || !Number.isInteger(step) || step < -1 || step >= steps) {
    throw new TraceError(`record ${position}: a run record names step ${String(step)}, but the trace has ${steps} steps`);
  }
  if (typeof run.verdict !== 'string' || !VERDICTS.has(run.verdict) || typeof run.inputs !== 'string') {
    throw new TraceError(`record ${position}: the run record of step ${step} has no verdict (same, differs, error) or inputs`);
  }
  if (run.differences !== undefined && !Array.isArray(run.differences)) {
    throw new TraceError(`record ${position}: the run record of step ${step}: its differences are not a list`);
  }
  return record as RunRecord;
}

/** A whole trace: header, steps, and how the run ended. */
export class Trace {
  readonly header: HeaderRecord;
  readonly initial: InitialState;
  readonly steps: StepRecord[];
  readonly status: 'ok' | 'failed' | 'incomplete';
  /** Kernel runs recorded after the steps (passviz run|bisect --record, the run panel), in order. */
  readonly runs: RunRecord[];
  readonly groups: PassGroup[];
  /** The pass of each step, by index. */
  readonly passNames: string[] = [];
  /** Every op's name by id, as created in the initial IR or by a step. */
  readonly opNames: Map<string, string>;

  constructor(records: TraceRecord[]) {
    this.header = checkHeader(records[0]);
    this.initial = this.header.initial!;
    // Run records come last (after the end record): the records before them are the steps.
    let count = records.length;
    while (count > 1 && isRun(records[count - 1])) {
      count -= 1;
    }
    const rest = records.slice(1, count);
    const last = rest[rest.length - 1];
    const end = isObject(last) && last.record === 'end' ? last : null;
    this.steps = (end ? rest.slice(0, -1) : rest).map((record, index) => checkStep(record, index));
    this.status = end ? (end.status === 'failed' ? 'failed' : 'ok') : 'incomplete';
    this.runs = records.slice(count).map((record, index) => checkRun(record, count + index, this.steps.length));
    this.groups = groupByPass(this.steps);
    this.opNames = opNames(this.initial.delta, this.steps);
    for (const group of this.groups) {
      for (const index of group.steps) {
        this.passNames[index] = group.name;
      }
    }
  }

  static from(data: unknown): Trace {
    return new Trace(readRecords(data));
  }

  /** The step's name as lists show it (automatic names name their op). */
  label(index: number): string {
    return stepLabel(this.steps[index], this.opNames);
  }

  /** The steps that carry a flag. */
  get failures(): StepRecord[] {
    return this.steps.filter(s => s.flag !== undefined);
  }

  /** The IR before the first step. */
  initialState(): IRState {
    const state = new IRState(this.initial.root);
    state.apply(this.initial.delta);
    return state;
  }
}

/** The pass each step belongs to: its own `pass`, or that of the last pass-begin. */
export function groupByPass(steps: StepRecord[]): PassGroup[] {
  const groups: PassGroup[] = [];
  let current: PassGroup | null = null;
  for (const step of steps) {
    const name: string = step.pass ?? current?.name ?? '(no pass)';
    if (step.kind === 'pass-begin' || current === null || current.name !== name) {
      current = { name, passIndex: step.pass_index ?? null, steps: [], flagged: false };
      groups.push(current);
    }
    current.steps.push(step.index);
    current.flagged ||= step.flag !== undefined;
  }
  return groups;
}

/** True if the step changed the IR (the Python `Step.changed`). */
export function stepChanged(step: StepRecord): boolean {
  const delta = step.delta ?? {};
  return (
    (delta.ops_created?.length ?? 0) > 0 ||
    (delta.ops_erased?.length ?? 0) > 0 ||
    (delta.ops_modified?.length ?? 0) > 0 ||
    (delta.placed?.length ?? 0) > 0 ||
    (delta.blocks_created?.length ?? 0) > 0 ||
    (delta.blocks_erased?.length ?? 0) > 0 ||
    Object.keys(delta.block_args ?? {}).length > 0 ||
    Object.keys(delta.block_names ?? {}).length > 0 ||
    Object.keys(delta.region_blocks ?? {}).length > 0
  );
}

/**
 * The IR state at any step, replaying forward and keeping checkpoints so that
 * stepping back does not replay from the start.
 */
export class StateCursor {
  private position = -1;
  private state: IRState;
  private readonly checkpoints = new Map<number, IRState>();

  constructor(
    readonly trace: Trace,
    /** A checkpoint is kept every this many steps. */
    readonly every = 32
  ) {
    this.state = trace.initialState();
    this.checkpoints.set(-1, this.state.clone());
  }

  /** The step whose state the cursor holds now. */
  get step(): number {
    return this.position;
  }

  /** The state after `step` (-1: the initial IR). The result must not be modified. */
  at(step: number): IRState {
    if (!Number.isInteger(step) || step < -1 || step >= this.trace.steps.length) {
      throw new RangeError(`step ${step} is out of range: the trace has ${this.trace.steps.length} steps`);
    }
    if (step < this.position) {
      let start = step;
      while (!this.checkpoints.has(start)) {
        start -= 1;
      }
      this.state = this.checkpoints.get(start)!.clone();
      this.position = start;
    }
    while (this.position < step) {
      this.position += 1;
      this.applyStep(this.position);
      if (this.position % this.every === this.every - 1) {
        this.checkpoints.set(this.position, this.state.clone());
      }
    }
    return this.state;
  }

  /** The states just before and just after `step`, as two independent objects. */
  around(step: number): [IRState, IRState] {
    if (step < 0) {
      const initial = this.at(-1);
      return [initial, initial];
    }
    const before = this.at(step - 1).clone();
    return [before, this.at(step)];
  }

  private applyStep(index: number): void {
    const step = this.trace.steps[index];
    try {
      this.state.apply(step.delta ?? {});
    } catch (error) {
      throw new TraceError(`step ${index}: cannot apply its delta: ${(error as Error).message}`);
    }
  }
}
