/**
 * @jest-environment node
 */
import { serveAhead, type AheadMessage } from '../src/model/aheadserver';
import { shareUnchanged } from '../src/model/diff';
import { sameFrame, shareFrames, StructureLayout } from '../src/model/layout';
import { StepModel, type AheadFailure, type AheadResult } from '../src/model/stepmodel';
import { Trace } from '../src/model/trace';
import { records } from './fixture';
import { regionTrace } from './regionfixture';

/** A worker's scope in this thread: messages go through the structured clone, as between threads. */
function server(): (message: AheadMessage) => AheadResult | AheadFailure {
  const answers: Array<AheadResult | AheadFailure> = [];
  const scope = {
    onmessage: null as ((event: { data: AheadMessage }) => void) | null,
    postMessage: (message: unknown) => answers.push(structuredClone(message) as AheadResult | AheadFailure)
  };
  serveAhead(scope);
  return message => {
    scope.onmessage!({ data: structuredClone(message) });
    return answers.pop()!;
  };
}

describe.each([
  ['the fixture trace', () => ({ records: records() })],
  ['the dispatch-region trace', () => regionTrace()]
])('steps laid out ahead in a worker: %s', (_, data) => {
  test('give the graph and frames the page would make, at every step, and the page adopts them', () => {
    const ask = server();
    const document = data();
    ask({ kind: 'trace', data: document });
    const trace = Trace.from(document);
    const model = new StepModel(trace);
    const page = new StructureLayout();
    for (let step = -1; step < trace.steps.length; step += 1) {
      const answer = ask({ kind: 'lay', id: step + 2, step, memory: page.memory() });
      expect('error' in answer).toBe(false);
      const laid = answer as AheadResult;
      expect(laid.id).toBe(step + 2);
      const diff = model.diffAt(step);
      expect([...laid.diff.nodes.values()]).toEqual([...diff.nodes.values()]);
      expect([...laid.diff.edges.values()]).toEqual([...diff.edges.values()]);
      // What the page lays out itself, from a fork of the same memory.
      const own = page.fork().frames(diff.nodes);
      expect([...laid.frames.keys()]).toEqual([...own.keys()]);
      for (const [id, frame] of laid.frames) {
        expect(sameFrame(frame, own.get(id)!)).toBe(true);
      }
      expect(page.adopt(page.withMemory(laid.memory))).toBe(true);
    }
  });
});

test('a memory from before a layout the page made since is not adopted', () => {
  const trace = Trace.from({ records: records() });
  const model = new StepModel(trace);
  const page = new StructureLayout();
  const memory = page.memory();
  page.frames(model.diffAt(-1).nodes);
  expect(page.adopt(page.withMemory(memory))).toBe(false);
});

test('a worker without a readable trace answers each request with an error', () => {
  const ask = server();
  ask({ kind: 'trace', data: { records: [] } });
  const answer = ask({ kind: 'lay', id: 1, step: 0, memory: new StructureLayout().memory() });
  expect(answer).toMatchObject({ id: 1, step: 0 });
  expect('error' in answer).toBe(true);
});

test("a step laid out in the worker shares the shown step's objects where they are equal", () => {
  const ask = server();
  const document = { records: records() };
  ask({ kind: 'trace', data: document });
  const trace = Trace.from(document);
  const model = new StepModel(trace);
  const page = new StructureLayout();
  const shown = model.diffAt(0);
  const shownFrames = page.frames(shown.nodes);
  const laid = ask({ kind: 'lay', id: 1, step: 1, memory: page.memory() }) as AheadResult;
  shareUnchanged(laid.diff, shown);
  shareFrames(laid.frames, page.lastFrames);
  const own = model.diffAt(1);
  let shared = 0;
  for (const [id, node] of laid.diff.nodes) {
    const old = shown.nodes.get(id);
    // Shared exactly where equal, field by field; the rest stays the worker's, equal to the page's own.
    expect(node === old).toBe(old !== undefined && JSON.stringify(old) === JSON.stringify(own.nodes.get(id)));
    expect(node).toEqual(own.nodes.get(id));
    shared += node === old ? 1 : 0;
  }
  expect(shared).toBeGreaterThan(0);
  expect([...laid.frames].filter(([id, frame]) => frame === shownFrames.get(id)).length).toBeGreaterThan(0);
});
