/**
 * A graph drawn as plain rectangles on a canvas: boxes outlined, ops filled,
 * changes in their status colours.  The minimap draws it small in a corner;
 * the graph pane draws it full size when so many nodes are in view that
 * their labels could not be read (a level of detail that keeps a
 * 10,000-op module as quick to open and pan as a small one).
 */

import type { Frame } from '../model/layout';

export const STATUS_COLOUR: Record<string, string> = {
  added: '#1a7f37',
  modified: '#bf8700',
  moved: '#0a7e8c',
  erased: '#cf222e'
};

/** Graph coordinates to canvas pixels: `canvas = graph * scale + offset`. */
export interface Transform {
  scale: number;
  x: number;
  y: number;
}

/** A rectangle (top-left corner and size). */
export interface Area {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface SketchOptions {
  /** Dataflow and branch edges as thin lines between node centres. */
  edges?: Iterable<readonly [string, string]>;
  /** Box labels, where a box is wide enough on the canvas to hold one. */
  labels?: (id: string) => string;
}

/** The bounds of `frames` (null when there are none). */
export function framesBounds(frames: Iterable<Frame>): Area | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const f of frames) {
    x0 = Math.min(x0, f.x - f.width / 2);
    y0 = Math.min(y0, f.y - f.height / 2);
    x1 = Math.max(x1, f.x + f.width / 2);
    y1 = Math.max(y1, f.y + f.height / 2);
  }
  return Number.isFinite(x0) ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : null;
}

/** Whether frame `f` meets `area` (graph coordinates). */
export function meets(f: Frame, area: Area): boolean {
  return f.x + f.width / 2 >= area.x && f.x - f.width / 2 <= area.x + area.w && f.y + f.height / 2 >= area.y && f.y - f.height / 2 <= area.y + area.h;
}

/**
 * Draw `frames` onto `ctx` (already cleared) through `t`, skipping what falls
 * outside the `width` × `height` canvas; `status` gives a node's status.
 */
export function drawSketch(
  ctx: CanvasRenderingContext2D,
  frames: Map<string, Frame>,
  status: (id: string) => string,
  t: Transform,
  width: number,
  height: number,
  options: SketchOptions = {}
): void {
  const view: Area = { x: -t.x / t.scale, y: -t.y / t.scale, w: width / t.scale, h: height / t.scale };
  // One pass over the frames sorts them into the boxes to outline, the plain
  // ops to fill (one path, one fill) and the changed ones to fill in colour.
  const boxes: Array<[string, Frame]> = [];
  const changed: Array<[Frame, string]> = [];
  const plain = new Path2D();
  for (const [id, f] of frames) {
    if (!meets(f, view)) {
      continue;
    }
    if (f.box) {
      boxes.push([id, f]);
    }
    const colour = STATUS_COLOUR[status(id)];
    if (colour) {
      changed.push([f, colour]);
    } else if (!f.box) {
      plain.rect((f.x - f.width / 2) * t.scale + t.x, (f.y - f.height / 2) * t.scale + t.y, Math.max(1, f.width * t.scale), Math.max(1, f.height * t.scale));
    }
  }
  const rect = (f: Frame): [number, number, number, number] => [
    (f.x - f.width / 2) * t.scale + t.x,
    (f.y - f.height / 2) * t.scale + t.y,
    Math.max(1, f.width * t.scale),
    Math.max(1, f.height * t.scale)
  ];
  ctx.lineWidth = 1;
  ctx.strokeStyle = '#8c959f';
  ctx.beginPath();
  for (const [, f] of boxes) {
    ctx.rect(...rect(f));
  }
  ctx.stroke();
  if (options.edges) {
    ctx.strokeStyle = 'rgba(140, 149, 159, 0.45)';
    ctx.beginPath();
    for (const [source, target] of options.edges) {
      const a = frames.get(source);
      const b = frames.get(target);
      if (!a || !b || (!meets(a, view) && !meets(b, view))) {
        continue;
      }
      ctx.moveTo(a.x * t.scale + t.x, a.y * t.scale + t.y);
      ctx.lineTo(b.x * t.scale + t.x, b.y * t.scale + t.y);
    }
    ctx.stroke();
  }
  ctx.fillStyle = '#d0d7de';
  ctx.fill(plain);
  for (const [f, colour] of changed) {
    ctx.fillStyle = colour;
    const [x, y, w, h] = rect(f);
    ctx.fillRect(x - 1, y - 1, w + 2, h + 2);
  }
  if (options.labels) {
    ctx.fillStyle = '#1f2328';
    ctx.font = '11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
    ctx.textBaseline = 'top';
    // Outer boxes first; a label that would fall on one already written is left out.
    const written: Area[] = [];
    boxes.sort(([, a], [, b]) => a.depth - b.depth);
    for (const [id, f] of boxes) {
      const [x, y, w] = rect(f);
      const label: Area = { x: x + 4, y: y + 3, w: w - 8, h: 13 };
      const clash = written.some(o => label.x < o.x + o.w && o.x < label.x + label.w && label.y < o.y + o.h && o.y < label.y + label.h);
      if (w > 90 && !clash) {
        ctx.fillText(options.labels(id), label.x, label.y, label.w);
        written.push(label);
      }
    }
  }
}
