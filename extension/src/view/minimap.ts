/**
 * The minimap: the whole graph in a corner, boxes and changed nodes as small
 * rectangles, with the part in view outlined.  A click there moves the view.
 */

import type { DiffGraph } from '../model/diff';
import type { Frame } from '../model/layout';
import { el } from './dom';

const WIDTH = 160;
const HEIGHT = 110;

const STATUS_COLOUR: Record<string, string> = {
  added: '#1a7f37',
  modified: '#bf8700',
  erased: '#cf222e'
};

interface Area {
  x: number;
  y: number;
  w: number;
  h: number;
}

export class Minimap {
  readonly node: HTMLCanvasElement;
  /** Graph bounds and the scale that maps them into the canvas. */
  private bounds: Area = { x: 0, y: 0, w: 1, h: 1 };
  private scale = 1;
  private picture: ImageData | null = null;

  constructor(private readonly onPick: (point: { x: number; y: number }) => void) {
    this.node = el('canvas', { className: 'pv-minimap', attrs: { width: String(WIDTH), height: String(HEIGHT), 'aria-hidden': 'true' } });
    this.node.addEventListener('pointerdown', this.onPointer);
  }

  dispose(): void {
    this.node.removeEventListener('pointerdown', this.onPointer);
  }

  private onPointer = (event: PointerEvent): void => {
    event.preventDefault();
    event.stopPropagation();
    const rect = this.node.getBoundingClientRect();
    const cx = ((event.clientX - rect.left) / rect.width) * WIDTH;
    const cy = ((event.clientY - rect.top) / rect.height) * HEIGHT;
    this.onPick({ x: this.bounds.x + cx / this.scale, y: this.bounds.y + cy / this.scale });
  };

  private context(): CanvasRenderingContext2D | null {
    try {
      return this.node.getContext('2d');
    } catch {
      return null; // jsdom has no canvas
    }
  }

  /** Draw the graph's frames; `view` is the part in view, in graph coordinates. */
  draw(frames: Map<string, Frame>, graph: DiffGraph, view: Area): void {
    const ctx = this.context();
    if (!ctx) {
      return;
    }
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const f of frames.values()) {
      x0 = Math.min(x0, f.x - f.width / 2);
      y0 = Math.min(y0, f.y - f.height / 2);
      x1 = Math.max(x1, f.x + f.width / 2);
      y1 = Math.max(y1, f.y + f.height / 2);
    }
    ctx.clearRect(0, 0, WIDTH, HEIGHT);
    if (!Number.isFinite(x0)) {
      this.picture = null;
      return;
    }
    this.bounds = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
    this.scale = Math.min(WIDTH / Math.max(1, x1 - x0), HEIGHT / Math.max(1, y1 - y0));
    ctx.fillStyle = 'rgba(255,255,255,0.9)';
    ctx.fillRect(0, 0, WIDTH, HEIGHT);
    const rect = (f: Frame): [number, number, number, number] => [
      (f.x - f.width / 2 - x0) * this.scale,
      (f.y - f.height / 2 - y0) * this.scale,
      Math.max(1, f.width * this.scale),
      Math.max(1, f.height * this.scale)
    ];
    ctx.lineWidth = 1;
    ctx.strokeStyle = '#8c959f';
    for (const f of frames.values()) {
      if (f.box) {
        ctx.strokeRect(...rect(f));
      }
    }
    ctx.fillStyle = '#d0d7de';
    const changed: Array<[Frame, string]> = [];
    for (const [id, f] of frames) {
      const status = graph.nodes.get(id)?.status ?? 'unchanged';
      if (STATUS_COLOUR[status]) {
        changed.push([f, STATUS_COLOUR[status]]);
      } else if (!f.box) {
        ctx.fillRect(...rect(f));
      }
    }
    for (const [f, colour] of changed) {
      ctx.fillStyle = colour;
      const [x, y, w, h] = rect(f);
      ctx.fillRect(x - 1, y - 1, w + 2, h + 2);
    }
    this.picture = ctx.getImageData(0, 0, WIDTH, HEIGHT);
    this.outline(ctx, view);
  }

  /** Move the outline of the part in view. */
  viewport(view: Area): void {
    const ctx = this.context();
    if (!ctx || !this.picture) {
      return;
    }
    ctx.putImageData(this.picture, 0, 0);
    this.outline(ctx, view);
  }

  private outline(ctx: CanvasRenderingContext2D, view: Area): void {
    ctx.strokeStyle = '#0969da';
    ctx.lineWidth = 2;
    ctx.strokeRect(
      (view.x - this.bounds.x) * this.scale,
      (view.y - this.bounds.y) * this.scale,
      view.w * this.scale,
      view.h * this.scale
    );
  }
}
