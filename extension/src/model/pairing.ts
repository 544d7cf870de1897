/**
 * Two traces of one input stepped together: the alignment `passviz diverge`
 * computed (`passviz/trace/alignment.py`, carried by the side-by-side page as
 * data) and the follower that moves one viewer to the counterpart of the
 * other's step.  Nothing here aligns anything: each step's counterpart is
 * read, never worked out.  The data comes from a page, so it is checked
 * before use and anything odd is refused with a message.
 */

/** How a step stands against the other trace, by the number the page gives it. */
export const PAIRINGS = ['aligned', 'within', 'alone', 'beyond'] as const;
export type Pairing = (typeof PAIRINGS)[number];

/** Which trace: 0 is A, 1 is B. */
export type Side = 0 | 1;

/** Where the other trace stands when one stands at a step. */
export interface Counterpart {
  /** The other trace's step (-1: its initial IR). */
  step: number;
  /** `aligned`: the same point of the compile; else why the step has none (the other stands at the last aligned before). */
  pairing: Pairing;
}

/** A pass both traces ran: the step its output stands after on each side, and its name on each. */
export interface AlignedPass {
  steps: [number, number];
  labels: [string, string];
}

/** Page data that cannot be read as an alignment. */
export class PairError extends Error {}

/** The longest line of text taken from the page's summary and diff. */
const MAX_LINE = 2000;
const MAX_LINES = 2000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStep(value: unknown, count: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= -1 && value < count;
}

function lines(value: unknown, what: string): string[] {
  if (value === undefined) {
    return [];
  }
  if (!Array.isArray(value) || !value.every(line => typeof line === 'string')) {
    throw new PairError(`the side-by-side data's ${what} is not a list of lines`);
  }
  return (value as string[]).slice(0, MAX_LINES).map(line => line.slice(0, MAX_LINE));
}

/** Each step's counterpart on one side, read from `[[step, pairing], ...]` (index 0: the initial IR). */
function readFollow(value: unknown, count: number, otherCount: number, name: string): Counterpart[] {
  if (!Array.isArray(value) || value.length !== count + 1) {
    throw new PairError(`the side-by-side data does not give each of ${name}'s ${count} steps and its initial IR a counterpart`);
  }
  return value.map((entry: unknown, index) => {
    if (!Array.isArray(entry) || entry.length !== 2 || !isStep(entry[0], otherCount)) {
      throw new PairError(`${name}'s step ${index - 1} has no readable counterpart in the side-by-side data`);
    }
    const pairing = PAIRINGS[entry[1] as number];
    if (!Number.isInteger(entry[1]) || pairing === undefined) {
      throw new PairError(`${name}'s step ${index - 1} has an unknown pairing in the side-by-side data`);
    }
    return { step: entry[0], pairing };
  });
}

/** The alignment of two traces as the side-by-side page carries it. */
export class PairAlignment {
  /** The passes both ran, in order. */
  readonly passes: AlignedPass[];
  /** The index in `passes` of the first after which the IR differs; -1: the initial IRs do; null: none does. */
  readonly first: number | null;
  /** The steps, one on each side, after which the traces first differ; null where they agree. */
  readonly divergence: [number, number] | null;
  /** What `passviz diverge` says, line by line. */
  readonly summary: string[];
  /** The diff (normalized IR) where they first differ, and how many lines of it were left out. */
  readonly diff: string[];
  readonly diffCut: number;
  private readonly follow: [Counterpart[], Counterpart[]];

  private constructor(data: Record<string, unknown>, counts: [number, number]) {
    const follow = data.follow;
    if (!Array.isArray(follow) || follow.length !== 2) {
      throw new PairError('the side-by-side data has no step alignment');
    }
    this.follow = [readFollow(follow[0], counts[0], counts[1], 'A'), readFollow(follow[1], counts[1], counts[0], 'B')];
    const passes = Array.isArray(data.passes) ? data.passes : [];
    this.passes = passes.map((entry: unknown, index) => {
      if (
        !Array.isArray(entry) ||
        entry.length !== 4 ||
        !isStep(entry[0], counts[0]) ||
        !isStep(entry[1], counts[1]) ||
        typeof entry[2] !== 'string' ||
        typeof entry[3] !== 'string'
      ) {
        throw new PairError(`aligned pass ${index + 1} in the side-by-side data is not readable`);
      }
      return { steps: [entry[0], entry[1]], labels: [entry[2].slice(0, MAX_LINE), entry[3].slice(0, MAX_LINE)] };
    });
    const first = data.first;
    this.first = typeof first === 'number' && Number.isInteger(first) && first >= -1 && first < this.passes.length ? first : null;
    const divergence = data.divergence;
    this.divergence =
      Array.isArray(divergence) && divergence.length === 2 && isStep(divergence[0], counts[0]) && isStep(divergence[1], counts[1])
        ? [divergence[0], divergence[1]]
        : null;
    this.summary = lines(data.summary, 'summary');
    this.diff = lines(data.diff, 'diff');
    this.diffCut = typeof data.diffCut === 'number' && data.diffCut > 0 ? Math.floor(data.diffCut) : 0;
  }

  /** The alignment in `data` (the page's `pair`) of two traces of `counts` steps; throws `PairError`. */
  static read(data: unknown, counts: [number, number]): PairAlignment {
    if (!isObject(data)) {
      throw new PairError('the page carries no side-by-side alignment');
    }
    return new PairAlignment(data, counts);
  }

  /** Where the other trace stands when `side` stands at `step` (-1: the initial IR). */
  counterpart(side: Side, step: number): Counterpart {
    const found = this.follow[side][step + 1];
    if (found === undefined) {
      throw new RangeError(`step ${step} is out of range: trace ${side === 0 ? 'A' : 'B'} has ${this.follow[side].length - 1} steps`);
    }
    return found;
  }

  /** The aligned pass whose output `step` of `side` belongs to (its index; null: after the last). */
  passAt(side: Side, step: number): number | null {
    const index = this.passes.findIndex(p => p.steps[side] >= step);
    return index < 0 ? null : index;
  }

  /** Whether the aligned pass `index` agrees (the IR is the same after it), differs first, or was not compared. */
  verdict(index: number): 'agrees' | 'differs' | 'not compared' {
    if (this.first === null) {
      return 'agrees';
    }
    if (index < this.first) {
      return 'agrees';
    }
    return index === this.first ? 'differs' : 'not compared';
  }
}

/** A viewer as the follower moves it. */
export interface Steppable {
  readonly step: number;
  /** Show `step`; settles when it is drawn. */
  setStep(step: number): Promise<void>;
}

/**
 * Moves one viewer to the counterpart of the step the person moved the other
 * to.  While a move draws, further moves of that side wait and only the latest
 * is shown: a held key on one side steps the other as fast as it draws, never
 * behind a queue.  A viewer moved here does not call back (the viewer calls
 * `onStep` only for the person's moves), so the two never chase each other.
 */
export class Follower {
  /** Whether moving one moves the other. */
  linked = true;
  private readonly wanted: [number | null, number | null] = [null, null];
  private readonly running: [Promise<void> | null, Promise<void> | null] = [null, null];
  private disposed = false;

  constructor(
    private readonly sides: [Steppable, Steppable],
    private readonly alignment: PairAlignment,
    /** Called after either side shows another step. */
    private readonly onChange: () => void = () => undefined
  ) {}

  /** `side` was moved by the person to `step`: move the other to its counterpart, if linked. */
  moved(side: Side, step: number): void {
    this.onChange();
    if (!this.linked || this.disposed) {
      return;
    }
    const other: Side = side === 0 ? 1 : 0;
    void this.show(other, this.alignment.counterpart(side, step).step);
  }

  /** Link or unlink the two; linking moves `leader`'s other side to its counterpart. */
  setLinked(linked: boolean, leader: Side = 0): Promise<void> {
    this.linked = linked;
    if (!linked) {
      return this.settled;
    }
    this.moved(leader, this.sides[leader].step);
    return this.settled;
  }

  /** Show `steps` (one for each side), linked or not: a divergence, a pass. */
  showBoth(steps: [number, number]): Promise<void> {
    return Promise.all([this.show(0, steps[0]), this.show(1, steps[1])]).then(() => undefined);
  }

  /** Settles once both sides show the last steps they were asked for. */
  get settled(): Promise<void> {
    return Promise.all(this.running.map(r => r ?? Promise.resolve())).then(() =>
      this.running.some(r => r !== null) ? this.settled : undefined
    );
  }

  /** Stop following: moves asked for are dropped. */
  dispose(): void {
    this.disposed = true;
    this.wanted[0] = this.wanted[1] = null;
  }

  private show(side: Side, step: number): Promise<void> {
    if (this.disposed) {
      return Promise.resolve();
    }
    this.wanted[side] = step;
    this.running[side] ??= this.drain(side);
    return this.running[side]!;
  }

  /** Show what `side` was last asked for, until nothing newer is asked. */
  private async drain(side: Side): Promise<void> {
    // Not before `show` has kept this promise: a drain with nothing to draw would end first.
    await Promise.resolve();
    try {
      for (let step = this.wanted[side]; step !== null && !this.disposed; step = this.wanted[side]) {
        this.wanted[side] = null;
        if (step !== this.sides[side].step) {
          await this.sides[side].setStep(step);
          this.onChange();
        }
      }
    } finally {
      this.running[side] = null;
    }
  }
}
