/**
 * Two traces stepped together (`src/model/pairing.ts`, `src/view/sidebyside.ts`):
 * the alignment the page carries is read and checked, the follower moves the
 * other side to each step's counterpart (only the latest while one draws,
 * never back and forth), and the side-by-side view in jsdom follows keys,
 * marks the divergence, jumps to it and lets go of its listeners.
 */

import cytoscape from 'cytoscape';

import { Follower, PairAlignment, PairError, type Side, type Steppable } from '../src/model/pairing';
import { SideBySide } from '../src/view/sidebyside';
import { escapeCss, sizeGraphCanvas, stubCanvas } from './jsdom';
import { regionTrace } from './regionfixture';

stubCanvas();
sizeGraphCanvas();
escapeCss();
cytoscape.warnings(false);

/**
 * Two traces of 6 steps: both record the same pass (steps 0-3) and cse (4-5), except that
 * A's rewrite 2 and B's rewrite 2 are not paired (each stands at the other's rewrite 1);
 * they first differ after A step 2 and B step 2.
 */
function pair(): Record<string, unknown> {
  const follow = (): number[][] => [[-1, 0], [0, 0], [1, 0], [1, 1], [3, 0], [4, 0], [5, 0]];
  return {
    follow: [follow(), follow()],
    passes: [
      [3, 3, 'form-dispatch-regions', 'form-dispatch-regions'],
      [5, 5, 'cse', 'cse']
    ],
    first: 0,
    divergence: [2, 2],
    summary: ['A: a (recorded, 6 steps)', 'B: b (recorded, 6 steps)', 'aligned 2 passes both ran', 'first divergence: after pass 1 of 2'],
    diff: ['--- A', '+++ B', '-  %0 = arith.subf %a, %b', '+  %0 = arith.subf %b, %a'],
    diffCut: 0
  };
}

describe('PairAlignment', () => {
  test('reads each step counterpart, the passes and the divergence', () => {
    const alignment = PairAlignment.read(pair(), [6, 6]);
    expect(alignment.counterpart(0, -1)).toEqual({ step: -1, pairing: 'aligned' });
    expect(alignment.counterpart(0, 2)).toEqual({ step: 1, pairing: 'within' });
    expect(alignment.counterpart(1, 5)).toEqual({ step: 5, pairing: 'aligned' });
    expect(alignment.divergence).toEqual([2, 2]);
    expect(alignment.passes[1]).toEqual({ steps: [5, 5], labels: ['cse', 'cse'] });
    expect([alignment.passAt(0, 0), alignment.passAt(0, 3), alignment.passAt(0, 4)]).toEqual([0, 0, 1]);
    expect([alignment.verdict(0), alignment.verdict(1)]).toEqual(['differs', 'not compared']);
    expect(() => alignment.counterpart(0, 6)).toThrow(RangeError);
  });

  test('refuses data that does not fit the two traces, with a message', () => {
    const cases: Array<[(data: Record<string, unknown>) => void, RegExp]> = [
      [data => ((data.follow as unknown[][])[0] = []), /each of A's 6 steps/],
      [data => ((data.follow as unknown[][])[1][3] = [7, 0]), /B's step 2 has no readable counterpart/],
      [data => ((data.follow as unknown[][])[0][3] = [1, 9]), /A's step 2 has an unknown pairing/],
      [data => ((data.passes as unknown[][])[0] = [3, 30, 'x', 'x']), /aligned pass 1/],
      [data => (data.summary = 'text'), /summary is not a list of lines/],
      [data => delete data.follow, /no step alignment/]
    ];
    for (const [spoil, message] of cases) {
      const data = pair();
      spoil(data);
      expect(() => PairAlignment.read(data, [6, 6])).toThrow(PairError);
      expect(() => PairAlignment.read(data, [6, 6])).toThrow(message);
    }
    expect(() => PairAlignment.read(null, [6, 6])).toThrow(/no side-by-side alignment/);
    // A divergence out of range is dropped, not followed.
    expect(PairAlignment.read({ ...pair(), divergence: [2, 60] }, [6, 6]).divergence).toBeNull();
  });
});

/** A viewer stand-in: records the steps it was set to; each draw settles when `release` is called. */
class FakeViewer implements Steppable {
  step = -1;
  readonly shown: number[] = [];
  private waiting: Array<() => void> = [];
  constructor(private readonly slow = false) {}

  setStep(step: number): Promise<void> {
    this.step = step;
    this.shown.push(step);
    return this.slow ? new Promise(done => this.waiting.push(done)) : Promise.resolve();
  }

  release(): void {
    for (const done of this.waiting.splice(0)) {
      done();
    }
  }
}

describe('Follower', () => {
  const alignment = (): PairAlignment => PairAlignment.read(pair(), [6, 6]);

  test('moves the other side to the counterpart, not back', async () => {
    const sides: [FakeViewer, FakeViewer] = [new FakeViewer(), new FakeViewer()];
    const changes: number[] = [];
    const follower = new Follower(sides, alignment(), () => changes.push(1));
    sides[0].step = 1;
    follower.moved(0, 1);
    await follower.settled;
    expect(sides[1].shown).toEqual([1]);
    // A step without a counterpart: the other stays at the last aligned before it.
    sides[0].step = 2;
    follower.moved(0, 2);
    await follower.settled;
    expect(sides[1].shown).toEqual([1]);
    sides[1].step = 3;
    follower.moved(1, 3);
    await follower.settled;
    expect(sides[0].shown).toEqual([3]);
    expect(sides[1].shown).toEqual([1]);
    expect(changes.length).toBeGreaterThanOrEqual(4);
  });

  test('while a move draws, only the latest step asked for follows', async () => {
    const sides: [FakeViewer, FakeViewer] = [new FakeViewer(), new FakeViewer(true)];
    const follower = new Follower(sides, alignment());
    follower.moved(0, 0);
    await new Promise(done => setTimeout(done, 0));
    expect(sides[1].shown).toEqual([0]);
    // B still draws step 0: these wait, and only the last is shown.
    for (const step of [1, 3, 4]) {
      follower.moved(0, step);
    }
    await new Promise(done => setTimeout(done, 0));
    expect(sides[1].shown).toEqual([0]);
    sides[1].release();
    await new Promise(done => setTimeout(done, 0));
    sides[1].release();
    await follower.settled;
    expect(sides[1].shown).toEqual([0, 4]);
  });

  test('unlinked, each side moves alone; linking again moves the other to the leader', async () => {
    const sides: [FakeViewer, FakeViewer] = [new FakeViewer(), new FakeViewer()];
    const follower = new Follower(sides, alignment());
    await follower.setLinked(false);
    sides[1].step = 4;
    follower.moved(1, 4);
    await follower.settled;
    expect(sides[0].shown).toEqual([]);
    await follower.setLinked(true, 1 as Side);
    expect(sides[0].shown).toEqual([4]);
    await follower.showBoth([2, 2]);
    expect([sides[0].step, sides[1].step]).toEqual([2, 2]);
    follower.dispose();
    follower.moved(0, 5);
    await follower.settled;
    expect(sides[1].step).toBe(2);
  });
});

describe('SideBySide', () => {
  const mounted: SideBySide[] = [];
  afterEach(() => {
    for (const view of mounted.splice(0)) {
      view.dispose();
    }
    document.body.replaceChildren();
  });

  function mount(data: Record<string, unknown> = { a: regionTrace(), b: regionTrace(), pair: pair() }): SideBySide {
    const host = document.createElement('div');
    document.body.appendChild(host);
    const view = SideBySide.mount(host, data)!;
    mounted.push(view);
    return view;
  }

  async function press(node: HTMLElement, key: string): Promise<void> {
    node.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
    node.dispatchEvent(new KeyboardEvent('keyup', { key, bubbles: true }));
  }

  test('a key on one side steps the other to its counterpart; the badges say how they stand', async () => {
    const view = mount();
    await view.rendered;
    expect(view.inspect().steps).toEqual([-1, -1]);
    expect(view.inspect().badges[0]).toBe('⇄ aligned with B the initial IR');
    await press(view.viewers[0].node, 'ArrowRight');
    await press(view.viewers[0].node, 'ArrowRight');
    await view.rendered;
    expect(view.inspect().steps).toEqual([1, 1]);
    await press(view.viewers[0].node, 'ArrowRight');
    await view.rendered;
    const seen = view.inspect();
    expect(seen.steps).toEqual([2, 1]);
    expect(seen.badgeKinds).toEqual(['unpaired', 'unpaired']);
    expect(seen.badges[0]).toMatch(/^no counterpart in B .*B stays at step 1, the last aligned before$/);
    expect(seen.badges[1]).toBe('A step 2 has no counterpart here: this is the last step aligned before it');
    // B leads: A follows.
    await press(view.viewers[1].node, 'End');
    await view.rendered;
    expect(view.inspect().steps).toEqual([5, 5]);
    expect(view.inspect().pass).toBe(1);
  });

  test('the divergence is marked in both timelines; the control and d jump to it', async () => {
    const view = mount();
    await view.rendered;
    const seen = view.inspect();
    expect(seen.marked).toEqual([[2], [2]]);
    expect(seen.unpaired).toEqual([1, 1]);
    const button = view.node.querySelector<HTMLButtonElement>('.pv-pair-jump')!;
    expect(button.disabled).toBe(false);
    button.click();
    await view.rendered;
    expect(view.inspect().steps).toEqual([2, 2]);
    expect(view.inspect().badgeKinds).toEqual(['diverged', 'diverged']);
    await view.goto(0, 5);
    expect(view.inspect().steps).toEqual([5, 5]);
    await press(view.viewers[1].node, 'd');
    await view.rendered;
    expect(view.inspect().steps).toEqual([2, 2]);
    // What diverge said, and the diff, as text.
    expect(view.node.querySelector('.pv-pair-first')?.textContent).toBe('first divergence: after pass 1 of 2');
    expect(view.node.querySelector('.pv-pair-minus')?.textContent).toBe('-  %0 = arith.subf %a, %b');
  });

  test('unlinked, one side moves alone; the pass list shows both after a pass', async () => {
    const view = mount();
    await view.rendered;
    await view.setLinked(false);
    await press(view.viewers[0].node, 'End');
    await view.rendered;
    expect(view.inspect().steps).toEqual([5, -1]);
    expect(view.inspect().badges[0]).toBe('aligned with B step 5; B shows the initial IR');
    const list = view.node.querySelector<HTMLSelectElement>('.pv-pair-pass')!;
    expect([...list.options].map(o => o.textContent)).toEqual([
      'aligned passes (2)',
      '✗ 1. form-dispatch-regions  (A step 3, B step 3)',
      '· 2. cse  (A step 5, B step 5)'
    ]);
    list.value = '0';
    list.dispatchEvent(new Event('change'));
    await view.rendered;
    expect(view.inspect().steps).toEqual([3, 3]);
  });

  test('disposed, it lets go of the page: d does nothing, the viewers are gone', async () => {
    const view = mount();
    await view.rendered;
    const viewers = (window as unknown as { passvizViewers: unknown[] }).passvizViewers;
    expect(viewers).toHaveLength(2);
    view.dispose();
    mounted.splice(0);
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'd', bubbles: true }));
    expect(view.viewers[0].step).toBe(-1);
    expect(viewers).toHaveLength(0);
    expect(document.querySelector('.pv-pair')).toBeNull();
  });

  test('data it cannot read shows why, and leaves no viewer behind', () => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    expect(SideBySide.mount(host, { a: regionTrace(), b: regionTrace(), pair: { ...pair(), follow: [[], []] } })).toBeNull();
    expect(host.querySelector('.pv-error')?.textContent).toMatch(/^passviz: the side-by-side data does not give each of A's 6 steps/);
    expect(SideBySide.mount(host, { a: regionTrace(), b: 'not a trace', pair: pair() })).toBeNull();
    expect((window as unknown as { passvizViewers: unknown[] }).passvizViewers).toHaveLength(0);
  });
});
