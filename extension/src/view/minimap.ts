/**
 * The minimap: the whole graph in a corner, boxes and changed nodes as small
 * rectangles, with the part in view outlined.  A click there moves the view.
 */

import type { DiffGraph } from '../model/diff';
import type { Frame } from '../model/layout';
import { el } from './dom';
import { drawSketch, framesBounds, type Area } from './sketch';

const WIDTH = 160;
const HEIGHT = 110;
export { WIDTH as MINIMAP_WIDTH, HEIGHT as MINIMAP_HEIGHT };

export class Minimap {
  readonly node: HTMLCanvasElement;
  /** Graph bounds and the scale that maps them into the canvas. */
  private bounds: Area = { x: 0, y: 0, w: 1, h: 1 };
  private scale = 1;
  private picture: ImageData | null = null;
  /** Set while the minimap is folded away (no corner of the pane is free of the step's changes). */
  folded = false;

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
    ctx.clearRect(0, 0, WIDTH, HEIGHT);
    const bounds = framesBounds(frames.values());
    if (!bounds) {
      this.picture = null;
      return;
    }
    this.bounds = bounds;
    this.scale = Math.min(WIDTH / Math.max(1, bounds.w), HEIGHT / Math.max(1, bounds.h));
    ctx.fillStyle = 'rgba(255,255,255,0.9)';
    ctx.fillRect(0, 0, WIDTH, HEIGHT);
    const status = (id: string): string => graph.nodes.get(id)?.status ?? 'unchanged';
    drawSketch(ctx, frames, status, { scale: this.scale, x: -bounds.x * this.scale, y: -bounds.y * this.scale }, WIDTH, HEIGHT);
    this.picture = ctx.getImageData(0, 0, WIDTH, HEIGHT);
    this.outline(ctx, view);
  }

  /** Sit in `corner` of the graph pane, or fold away (null). */
  place(corner: 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left' | null): void {
    this.folded = corner === null;
    this.node.hidden = corner === null;
    this.node.dataset.corner = corner ?? 'folded';
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
