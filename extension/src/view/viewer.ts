/**
 * The trace viewer: timeline, graph, IR and details panes for one trace.
 *
 * It is plain DOM with no JupyterLab dependency, so that the MIME renderer,
 * the document viewer, the ipywidget and the standalone HTML page all show
 * the same component.  Keyboard: ← and → step through the steps the timeline
 * shows, `/` searches.
 */

import { countStatuses, diffGraphs, touchedBy } from '../model/diff';
import { elkLayout } from '../model/elk';
import { buildGraph, type GraphData } from '../model/graph';
import { diffLines, irLines, type IRLine } from '../model/irtext';
import { LayoutMemory, neighbourMap, programOrderLayout } from '../model/layout';
import { lineage } from '../model/lineage';
import type { IRState } from '../model/state';
import { StateCursor, Trace, TraceError } from '../model/trace';
import { DetailsPane } from './details';
import { el } from './dom';
import { GraphPane, type DrawnNode, type EdgeFilter } from './graphview';
import { IRPane } from './irpane';
import { Timeline } from './timeline';

export interface ViewerOptions {
  /** The step to show first (-1: the initial IR). */
  step?: number;
  selected?: string | null;
  /** Called when the person moves to another step. */
  onStep?: (step: number) => void;
  /** Called when the person selects an op (or clears the selection). */
  onSelect?: (op: string | null) => void;
  /** Graphs with more nodes than this get the program-order layout instead of ELK's. */
  elkLimit?: number;
}

const OP_ID = /^o[0-9]+$/;

/** A small cache of per-step values, most recent last. */
class StepCache<T> {
  private readonly map = new Map<number, T>();
  constructor(private readonly size: number) {}
  get(step: number, make: () => T): T {
    const hit = this.map.get(step);
    if (hit !== undefined) {
      this.map.delete(step);
      this.map.set(step, hit);
      return hit;
    }
    const value = make();
    this.map.set(step, value);
    if (this.map.size > this.size) {
      this.map.delete(this.map.keys().next().value!);
    }
    return value;
  }
}

export class TraceViewer {
  readonly node: HTMLElement;
  readonly trace: Trace;
  private readonly cursor: StateCursor;
  private readonly layout = new LayoutMemory();
  private readonly timeline: Timeline;
  private readonly graphPane: GraphPane;
  private readonly irPane: IRPane;
  private readonly details: DetailsPane;
  private readonly title: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly graphs = new StepCache<GraphData>(6);
  private readonly lines = new StepCache<IRLine[]>(6);
  private readonly edgeFilter: EdgeFilter = { use: true, branch: true };
  private readonly elkLimit: number;
  private current = -2;
  private selected: string | null;
  private token = 0;
  /** Settles when the latest requested step is drawn. */
  rendered: Promise<void> = Promise.resolve();

  constructor(
    data: unknown,
    private readonly options: ViewerOptions = {}
  ) {
    this.trace = Trace.from(data);
    this.cursor = new StateCursor(this.trace);
    this.elkLimit = options.elkLimit ?? 800;
    this.selected = options.selected ?? null;
    this.timeline = new Timeline(this.trace, step => this.go(step, true));
    this.graphPane = new GraphPane(id => this.select(id, true));
    this.irPane = new IRPane(op => this.select(op, true));
    this.details = new DetailsPane(
      step => this.go(step, true),
      id => this.select(id, true)
    );
    this.title = el('div', { className: 'pv-title' });
    this.legend = el('div', { className: 'pv-legend' }, [
      el('span', { className: 'pv-key pv-key-added', text: 'added' }),
      el('span', { className: 'pv-key pv-key-modified', text: 'modified' }),
      el('span', { className: 'pv-key pv-key-erased', text: 'erased' }),
      el('span', { className: 'pv-key pv-key-chain', text: 'pointer chain' })
    ]);
    this.node = el(
      'div',
      {
        className: 'pv-viewer',
        attrs: { tabindex: '0', 'data-lm-suppress-shortcuts': 'true', 'aria-label': 'passviz trace viewer' }
      },
      [
        this.toolbar(),
        el('div', { className: 'pv-body' }, [
          this.timeline.node,
          el('div', { className: 'pv-center' }, [this.graphPane.node, this.legend]),
          el('div', { className: 'pv-side' }, [this.irPane.node, this.details.node])
        ])
      ]
    );
    // Tools and tests reach the viewer from its element.
    Object.defineProperty(this.node, 'passvizViewer', { value: this });
    this.node.addEventListener('keydown', this.onKey);
    this.go(options.step ?? -1, false);
  }

  /** A viewer for `data` in `host`; a trace that cannot be read shows its error instead. */
  static mount(host: HTMLElement, data: unknown, options: ViewerOptions = {}): TraceViewer | null {
    try {
      const viewer = new TraceViewer(data, options);
      host.appendChild(viewer.node);
      return viewer;
    } catch (error) {
      const message = error instanceof TraceError || error instanceof RangeError ? error.message : String(error);
      host.appendChild(el('div', { className: 'pv-error', attrs: { role: 'alert' }, text: `passviz: ${message}` }));
      return null;
    }
  }

  dispose(): void {
    this.node.removeEventListener('keydown', this.onKey);
    this.timeline.dispose();
    this.irPane.dispose();
    this.graphPane.dispose();
    this.node.remove();
  }

  get step(): number {
    return this.current;
  }

  get selectedOp(): string | null {
    return this.selected;
  }

  /** Show `step` (-1: the initial IR). */
  setStep(step: number): Promise<void> {
    this.go(step, false);
    return this.rendered;
  }

  /** Select `id` (an op, block or region) or clear the selection. */
  selectOp(id: string | null): void {
    this.select(id, false);
  }

  /** The next (+1) or previous (-1) step the timeline shows. */
  move(direction: 1 | -1): void {
    const visible = this.timeline.visibleSteps();
    const next =
      direction > 0 ? visible.find(s => s > this.current) : [...visible].reverse().find(s => s < this.current);
    if (next !== undefined) {
      this.go(next, true);
    }
  }

  /** Tell the graph its container changed size. */
  resize(): void {
    this.graphPane.resize();
  }

  /** The nodes drawn now, with status, position and marks. */
  drawnNodes(): DrawnNode[] {
    return this.graphPane.drawn();
  }

  drawnEdges(): ReturnType<GraphPane['drawnEdges']> {
    return this.graphPane.drawnEdges();
  }

  private toolbar(): HTMLElement {
    const button = (text: string, title: string, action: () => void): HTMLElement => {
      const node = el('button', { className: 'pv-button', text, title });
      node.addEventListener('click', action);
      return node;
    };
    const toggle = (label: string, key: keyof EdgeFilter): HTMLElement => {
      const box = el('input', { attrs: { type: 'checkbox' } });
      box.checked = this.edgeFilter[key];
      box.addEventListener('change', () => {
        this.edgeFilter[key] = box.checked;
        this.redraw();
      });
      return el('label', { className: 'pv-check' }, [box, el('span', { text: ` ${label}` })]);
    };
    return el('div', { className: 'pv-toolbar' }, [
      button('◀', 'previous step (←)', () => this.move(-1)),
      button('▶', 'next step (→)', () => this.move(1)),
      this.title,
      el('span', { className: 'pv-spacer' }),
      toggle('dataflow', 'use'),
      toggle('control flow', 'branch'),
      button('fit', 'zoom to the whole graph', () => this.graphPane.fit())
    ]);
  }

  private onKey = (event: KeyboardEvent): void => {
    const target = event.target as HTMLElement;
    const typing = target.tagName === 'INPUT' || target.tagName === 'TEXTAREA';
    if (event.key === '/' && !typing) {
      event.preventDefault();
      event.stopPropagation();
      this.timeline.search.focus();
      return;
    }
    if (typing && event.key === 'Escape') {
      this.node.focus();
      return;
    }
    if (typing || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      event.preventDefault();
      event.stopPropagation();
      this.move(event.key === 'ArrowRight' ? 1 : -1);
    }
  };

  private stateGraph(step: number, state: IRState): GraphData {
    return this.graphs.get(step, () => buildGraph(state));
  }

  private stateLines(step: number, state: IRState): IRLine[] {
    return this.lines.get(step, () => irLines(state));
  }

  private go(step: number, fromUser: boolean): void {
    if (!Number.isInteger(step) || step < -1 || step >= this.trace.steps.length) {
      throw new RangeError(`step ${step} is out of range: the trace has ${this.trace.steps.length} steps`);
    }
    if (step === this.current) {
      return;
    }
    this.current = step;
    this.node.dataset.step = String(step);
    this.timeline.setCurrent(step);
    const token = ++this.token;
    this.rendered = this.draw(step, token).catch((error: unknown) => {
      this.title.textContent = `step ${step}: ${error instanceof Error ? error.message : String(error)}`;
    });
    if (fromUser) {
      this.options.onStep?.(step);
    }
  }

  private select(id: string | null, fromUser: boolean): void {
    if (id === this.selected) {
      return;
    }
    this.selected = id;
    this.redraw();
    if (fromUser && (id === null || OP_ID.test(id))) {
      this.options.onSelect?.(id);
    }
  }

  /** Draw the current step again (selection or edge filter changed). */
  private redraw(): void {
    const token = ++this.token;
    this.rendered = this.draw(this.current, token).catch(() => undefined);
  }

  private async draw(step: number, token: number): Promise<void> {
    const [before, after] = this.cursor.around(step);
    const record = step >= 0 ? this.trace.steps[step] : null;
    const graphBefore = this.stateGraph(step - 1, before);
    const graphAfter = step < 0 ? graphBefore : this.stateGraph(step, after);
    const diff = diffGraphs(graphBefore, graphAfter, record ? touchedBy(record.delta ?? {}) : new Set());
    const text = diffLines(this.stateLines(step - 1, before), step < 0 ? this.stateLines(-1, before) : this.stateLines(step, after));
    if (this.layout.size === 0) {
      const seed =
        diff.nodes.size <= this.elkLimit
          ? await elkLayout(diff.nodes, diff.edges.values())
          : programOrderLayout(diff.nodes);
      if (token !== this.token) {
        return;
      }
      this.layout.seed(diff.nodes, seed);
    }
    this.layout.place(diff.nodes, neighbourMap(diff.edges.values()));
    const chain = record?.chain ?? [];
    this.graphPane.render(diff, node => this.layout.positionOf(node), { root: record?.root ?? null, chain, selected: this.selected }, this.edgeFilter);
    const counts = countStatuses(diff);
    this.title.textContent = this.describe(step, counts);
    this.irPane.render(text, step < 0 ? 'IR (initial)' : `IR after step ${step}`);
    this.irPane.select(this.selected);
    const history = this.selected !== null ? lineage(this.trace.steps, this.selected) : [];
    this.details.render(record, record ? this.trace.passNames[step] : '', after, before, this.selected, history);
    this.node.dataset.rendered = String(step);
  }

  private describe(step: number, counts: Record<string, number>): string {
    const total = this.trace.steps.length;
    if (step < 0) {
      return `initial IR · ${total} steps`;
    }
    const record = this.trace.steps[step];
    const parts = [`step ${step} of ${total - 1}`, record.kind, this.trace.passNames[step], record.name ?? ''];
    const changed = `+${counts.added} ~${counts.modified} −${counts.erased}`;
    return `${parts.filter(p => p !== '').join(' · ')}   ${changed}`;
  }
}
